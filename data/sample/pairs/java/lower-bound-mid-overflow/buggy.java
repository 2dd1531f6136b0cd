public static int lowerBound(long[] sorted, long target) {
    int lo = 0;
    int hi = sorted.length;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (sorted[mid] < target) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}
