public static int costOf(String method) {
    int cost;
    switch (method) {
        case "GET":
            cost = 1;
            break;
        case "POST":
            cost = 5;
            break;
        case "DELETE":
            cost = 10;
            break;
        default:
            cost = 2;
            break;
    }
    return cost;
}
