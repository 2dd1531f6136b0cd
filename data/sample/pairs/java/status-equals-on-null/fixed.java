public static boolean isHealthy(Map<String, String> headers) {
    if (headers.isEmpty()) {
        return false;
    }
    String status = headers.get("X-Service-Status");
    return "UP".equals(status) || "DEGRADED".equals(status);
}
