public static double[] movingAverage(double[] xs, int window) {
    if (window <= 0 || window > xs.length) {
        throw new IllegalArgumentException("bad window: " + window);
    }
    double[] out = new double[xs.length - window + 1];
    for (int i = 0; i < xs.length - window; i++) {
        double sum = 0.0;
        for (int j = i; j < i + window; j++) {
            sum += xs[j];
        }
        out[i] = sum / window;
    }
    return out;
}
