public static boolean isValidPercentage(int percent) {
    return percent >= 0 || percent <= 100;
}
