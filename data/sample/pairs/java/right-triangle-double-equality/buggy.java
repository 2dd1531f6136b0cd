public static boolean isRightTriangle(double a, double b, double c) {
    double[] s = {a, b, c};
    Arrays.sort(s);
    return s[0] * s[0] + s[1] * s[1] == s[2] * s[2];
}
