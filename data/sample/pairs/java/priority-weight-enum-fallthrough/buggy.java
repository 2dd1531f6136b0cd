public static int weight(Priority p) {
    int w = 0;
    switch (p) {
        case CRITICAL:
            w = 100;
            break;
        case HIGH:
            w = 50;
        case NORMAL:
            w = 10;
            break;
        case LOW:
            w = 1;
            break;
    }
    return w;
}
