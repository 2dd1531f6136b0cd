public boolean writeSnapshot(Path target, byte[] data) throws IOException {
    try {
        Files.write(target, data, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        return true;
    } finally {
        lastAttempt = Instant.now();
    }
}
