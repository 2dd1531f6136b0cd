public static void writeRequest(OutputStream out, String path, String json) throws IOException {
    String head = "POST " + path + " HTTP/1.1\r\n"
            + "Content-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: " + json.length() + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(json.getBytes(StandardCharsets.UTF_8));
    out.flush();
}
