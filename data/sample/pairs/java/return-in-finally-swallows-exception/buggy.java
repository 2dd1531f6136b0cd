public boolean writeSnapshot(Path target, byte[] data) throws IOException {
    boolean ok = false;
    try {
        Files.write(target, data, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        ok = true;
    } finally {
        lastAttempt = Instant.now();
        return ok;
    }
}
