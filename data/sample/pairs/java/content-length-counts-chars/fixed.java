public static void writeRequest(OutputStream out, String path, String json) throws IOException {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    String head = "POST " + path + " HTTP/1.1\r\n"
            + "Content-Type: application/json; charset=utf-8\r\n"
            + "Content-Length: " + body.length + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(body);
    out.flush();
}
