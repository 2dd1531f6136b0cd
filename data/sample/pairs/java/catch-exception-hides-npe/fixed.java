public static int portOrDefault(Map<String, String> env, int fallback) {
    String raw = env.get("SERVICE_PORT");
    if (raw == null) {
        return fallback;
    }
    try {
        return Integer.parseInt(raw.trim());
    } catch (NumberFormatException e) {
        return fallback;
    }
}
