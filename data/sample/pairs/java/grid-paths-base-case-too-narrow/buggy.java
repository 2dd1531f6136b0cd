public static long countPaths(int rows, int cols) {
    if (rows == 1 && cols == 1) {
        return 1;
    }
    return countPaths(rows - 1, cols) + countPaths(rows, cols - 1);
}
