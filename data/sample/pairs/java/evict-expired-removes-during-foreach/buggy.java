public int evictExpired(long nowMillis) {
    int evicted = 0;
    for (String id : sessions.keySet()) {
        if (sessions.get(id).expiresAt() < nowMillis) {
            sessions.remove(id);
            evicted++;
        }
    }
    return evicted;
}
