public RateLimiter limiterFor(String clientId) {
    if (!limiters.containsKey(clientId)) {
        limiters.put(clientId, new RateLimiter(permitsPerSecond));
    }
    return limiters.get(clientId);
}
