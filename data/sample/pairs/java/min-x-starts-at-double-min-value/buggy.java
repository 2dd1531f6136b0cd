public static double minX(List<double[]> vertices) {
    double min = Double.MIN_VALUE;
    for (double[] v : vertices) {
        if (v[0] < min) {
            min = v[0];
        }
    }
    return min;
}
