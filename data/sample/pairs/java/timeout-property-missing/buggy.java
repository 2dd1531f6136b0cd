public static long timeoutMillis(Properties props) {
    String raw = props.getProperty("http.timeout.ms");
    raw = raw.trim();
    if (raw.isEmpty()) {
        return DEFAULT_TIMEOUT_MS;
    }
    return Long.parseLong(raw);
}
