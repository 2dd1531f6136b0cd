public static boolean isLeapYear(int year) {
    if (year < 1583) {
        throw new IllegalArgumentException("Gregorian calendar only: " + year);
    }
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}
