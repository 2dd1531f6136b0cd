private static final double REL_EPS = 1e-9;

public static boolean isRightTriangle(double a, double b, double c) {
    double[] s = {a, b, c};
    Arrays.sort(s);
    double lhs = s[0] * s[0] + s[1] * s[1];
    double rhs = s[2] * s[2];
    return Math.abs(lhs - rhs) <= REL_EPS * Math.max(Math.abs(lhs), Math.abs(rhs));
}
