public static String formatOffset(double meters, int direction) {
    if (direction != 1 && direction != -1) {
        throw new IllegalArgumentException("direction must be +1 or -1");
    }
    double offset = meters * direction;
    if (Math.abs(offset) < 0.005) {
        offset = 0.0;
    }
    return String.format(Locale.ROOT, "%.2f m", offset);
}
