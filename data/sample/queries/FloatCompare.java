public static boolean balancesMatch(double[] credits, double[] debits) {
    double totalCredits = 0.0;
    double totalDebits = 0.0;
    for (double c : credits) {
        totalCredits += c;
    }
    for (double d : debits) {
        totalDebits += d;
    }
    return totalCredits == totalDebits;
}
