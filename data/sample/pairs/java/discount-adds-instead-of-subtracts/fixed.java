public static long applyDiscount(long subtotalCents, int percentOff) {
    if (percentOff < 0 || percentOff > 100) {
        throw new IllegalArgumentException("percentOff out of range: " + percentOff);
    }
    long total = subtotalCents;
    total -= subtotalCents * percentOff / 100;
    return total;
}
