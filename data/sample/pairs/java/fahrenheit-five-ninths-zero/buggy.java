public static double[] toCelsius(double[] fahrenheit) {
    double[] out = new double[fahrenheit.length];
    for (int i = 0; i < fahrenheit.length; i++) {
        out[i] = (fahrenheit[i] - 32) * (5 / 9);
    }
    return out;
}
