public static double compoundFactor(double[] monthlyRates) {
    double factor = 1.0;
    for (double r : monthlyRates) {
        factor *= 1.0 + r;
    }
    return factor;
}
