public static LocalDate parseUsDate(String text) {
    String[] p = text.trim().split("/");
    int month = Integer.parseInt(p[0]);
    int day = Integer.parseInt(p[1]);
    int year = Integer.parseInt(p[2]);
    return LocalDate.of(year, month, day);
}
