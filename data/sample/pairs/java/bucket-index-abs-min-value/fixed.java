public Shard shardFor(Object key) {
    if (shards.isEmpty()) {
        throw new IllegalStateException("no shards configured");
    }
    int index = Math.floorMod(key.hashCode(), shards.size());
    return shards.get(index);
}
