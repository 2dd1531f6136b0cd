public static int portOrDefault(Map<String, String> env, int fallback) {
    try {
        String raw = env.get("SERVICE_PORT");
        return Integer.parseInt(raw.trim());
    } catch (Exception e) {
        return fallback;
    }
}
