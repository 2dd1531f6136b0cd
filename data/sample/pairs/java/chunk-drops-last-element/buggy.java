public static <T> List<List<T>> chunk(List<T> items, int size) {
    if (size <= 0) {
        throw new IllegalArgumentException("size must be positive");
    }
    List<List<T>> chunks = new ArrayList<>();
    for (int i = 0; i < items.size(); i += size) {
        int end = Math.min(i + size, items.size() - 1);
        chunks.add(new ArrayList<>(items.subList(i, end)));
    }
    return chunks;
}
