public static String expandTabs(String line, int tabWidth) {
    if (tabWidth < 1) {
        throw new IllegalArgumentException("tabWidth must be positive");
    }
    String spaces = " ".repeat(tabWidth);
    return line.replace("\t", spaces);
}
