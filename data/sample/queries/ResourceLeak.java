public static String firstLine(Path path) throws IOException {
    BufferedReader reader = new BufferedReader(
            new InputStreamReader(Files.newInputStream(path), StandardCharsets.UTF_8));
    String line = reader.readLine();
    return line == null ? "" : line.trim();
}
