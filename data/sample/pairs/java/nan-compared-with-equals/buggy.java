public static double meanIgnoringMissing(double[] samples) {
    double sum = 0.0;
    int n = 0;
    for (double x : samples) {
        if (x == Double.NaN) {
            continue;
        }
        sum += x;
        n++;
    }
    return n == 0 ? Double.NaN : sum / n;
}
