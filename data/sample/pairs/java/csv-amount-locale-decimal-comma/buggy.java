public static String toCsvLine(String invoiceId, double amount, String currency) {
    if (invoiceId.indexOf(',') >= 0) {
        throw new IllegalArgumentException("invoice id contains a comma: " + invoiceId);
    }
    return String.format("%s,%.2f,%s", invoiceId, amount, currency);
}
