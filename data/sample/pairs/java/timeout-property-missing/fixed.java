public static long timeoutMillis(Properties props) {
    String raw = props.getProperty("http.timeout.ms");
    if (raw == null || raw.trim().isEmpty()) {
        return DEFAULT_TIMEOUT_MS;
    }
    return Long.parseLong(raw.trim());
}
