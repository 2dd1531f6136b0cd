private ConnectionPool pool;

public ConnectionPool pool() {
    if (pool == null) {
        synchronized (this) {
            if (pool == null) {
                pool = new ConnectionPool(config);
            }
        }
    }
    return pool;
}
