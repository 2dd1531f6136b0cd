public static long countLines(Path path) throws IOException {
    BufferedReader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8);
    long count = 0;
    while (reader.readLine() != null) {
        count++;
    }
    return count;
}
