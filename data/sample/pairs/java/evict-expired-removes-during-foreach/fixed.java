public int evictExpired(long nowMillis) {
    int evicted = 0;
    Iterator<Map.Entry<String, Session>> it = sessions.entrySet().iterator();
    while (it.hasNext()) {
        if (it.next().getValue().expiresAt() < nowMillis) {
            it.remove();
            evicted++;
        }
    }
    return evicted;
}
