private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("YYYYMMdd");

public static String invoiceNumber(LocalDate issued, int sequence) {
    return "INV-" + FORMAT.format(issued) + "-" + String.format("%05d", sequence);
}
