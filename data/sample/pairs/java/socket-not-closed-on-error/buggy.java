public static boolean sendPing(String host, int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress(host, port), 2000);
    OutputStream out = socket.getOutputStream();
    out.write("PING\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    int reply = socket.getInputStream().read();
    socket.close();
    return reply == '+';
}
