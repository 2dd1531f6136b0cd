private volatile ConnectionPool pool;

public ConnectionPool pool() {
    ConnectionPool p = pool;
    if (p == null) {
        synchronized (this) {
            p = pool;
            if (p == null) {
                p = new ConnectionPool(config);
                pool = p;
            }
        }
    }
    return p;
}
