public static boolean sameStock(Map<String, Integer> a, Map<String, Integer> b, String sku) {
    Integer left = a.get(sku);
    Integer right = b.get(sku);
    return Objects.equals(left, right);
}
