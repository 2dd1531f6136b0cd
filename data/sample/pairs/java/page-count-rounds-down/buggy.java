public static int pageCount(int totalItems, int pageSize) {
    if (pageSize <= 0) {
        throw new IllegalArgumentException("pageSize must be positive");
    }
    return totalItems / pageSize;
}
