public static long lineTotalCents(int quantity, int unitPriceCents) {
    if (quantity < 0 || unitPriceCents < 0) {
        throw new IllegalArgumentException("negative quantity or price");
    }
    long total = (long) quantity * unitPriceCents;
    return total;
}
