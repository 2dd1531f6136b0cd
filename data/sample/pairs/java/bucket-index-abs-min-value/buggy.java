public Shard shardFor(Object key) {
    if (shards.isEmpty()) {
        throw new IllegalStateException("no shards configured");
    }
    int index = Math.abs(key.hashCode()) % shards.size();
    return shards.get(index);
}
