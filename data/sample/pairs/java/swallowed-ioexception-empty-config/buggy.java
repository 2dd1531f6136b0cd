public static Properties load(Path path) {
    Properties props = new Properties();
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
        props.load(r);
    } catch (IOException e) {
        // ignore
    }
    return props;
}
