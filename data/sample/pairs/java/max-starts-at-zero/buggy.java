public static int largest(int[] values) {
    if (values.length == 0) {
        throw new NoSuchElementException("empty array");
    }
    int max = 0;
    for (int v : values) {
        if (v > max) {
            max = v;
        }
    }
    return max;
}
