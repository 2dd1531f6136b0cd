public static String lastChars(String s, int n) {
    if (n <= 0) {
        return "";
    }
    if (n > s.length()) {
        return s;
    }
    return s.substring(s.length() - n - 1);
}
