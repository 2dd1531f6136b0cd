private static final DateTimeFormatter FORMAT = DateTimeFormatter.ofPattern("yyyyMMdd");

public static String invoiceNumber(LocalDate issued, int sequence) {
    return "INV-" + FORMAT.format(issued) + "-" + String.format("%05d", sequence);
}
