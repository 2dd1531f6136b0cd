public RateLimiter limiterFor(String clientId) {
    return limiters.computeIfAbsent(clientId, id -> new RateLimiter(permitsPerSecond));
}
