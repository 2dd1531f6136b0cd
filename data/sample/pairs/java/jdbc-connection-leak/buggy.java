public long invoiceTotal(long invoiceId) throws SQLException {
    Connection conn = dataSource.getConnection();
    PreparedStatement ps = conn.prepareStatement(
            "SELECT SUM(amount_cents) FROM invoice_line WHERE invoice_id = ?");
    ps.setLong(1, invoiceId);
    ResultSet rs = ps.executeQuery();
    return rs.next() ? rs.getLong(1) : 0L;
}
