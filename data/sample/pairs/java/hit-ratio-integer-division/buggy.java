public double hitRatio() {
    long hits = hitCount.get();
    long total = hits + missCount.get();
    if (total == 0) {
        return 0.0;
    }
    return hits / total;
}
