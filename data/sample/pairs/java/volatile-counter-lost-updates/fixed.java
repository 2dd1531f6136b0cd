private final LongAdder requests = new LongAdder();
private final LongAdder bytesServed = new LongAdder();

public void recordRequest(long bytes) {
    requests.increment();
    bytesServed.add(bytes);
}
