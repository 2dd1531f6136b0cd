public static int indexOf(int[] keys, int key) {
    int lo = 0;
    int hi = keys.length;
    while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        if (keys[mid] < key) {
            lo = mid + 1;
        } else if (keys[mid] > key) {
            hi = mid - 1;
        } else {
            return mid;
        }
    }
    return -1;
}
