public static boolean verify(Path file, byte[] expected) throws IOException, NoSuchAlgorithmException {
    MessageDigest md = MessageDigest.getInstance("SHA-256");
    byte[] actual = md.digest(Files.readAllBytes(file));
    return MessageDigest.isEqual(expected, actual);
}
