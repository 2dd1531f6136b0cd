private volatile long requests;
private volatile long bytesServed;

public void recordRequest(long bytes) {
    requests++;
    bytesServed += bytes;
}
