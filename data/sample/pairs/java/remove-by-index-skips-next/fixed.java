public static void removeNegatives(List<Integer> values) {
    values.removeIf(v -> v < 0);
}
