public static double[][] transpose(double[][] m) {
    int rows = m.length;
    int cols = m[0].length;
    double[][] t = new double[cols][rows];
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            t[j][i] = m[i][i];
        }
    }
    return t;
}
