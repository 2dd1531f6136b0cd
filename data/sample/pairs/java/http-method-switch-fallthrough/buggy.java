public static int costOf(String method) {
    int cost;
    switch (method) {
        case "GET":
            cost = 1;
        case "POST":
            cost = 5;
        case "DELETE":
            cost = 10;
        default:
            cost = 2;
    }
    return cost;
}
