public static void removeNegatives(List<Integer> values) {
    for (int i = 0; i < values.size(); i++) {
        if (values.get(i) < 0) {
            values.remove(i);
        }
    }
}
