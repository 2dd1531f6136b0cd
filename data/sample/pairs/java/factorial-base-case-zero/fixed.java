public static BigInteger factorial(int n) {
    if (n < 0) {
        throw new IllegalArgumentException("n must be >= 0");
    }
    if (n <= 1) {
        return BigInteger.ONE;
    }
    return BigInteger.valueOf(n).multiply(factorial(n - 1));
}
