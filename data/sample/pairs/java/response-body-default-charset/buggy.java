public static String bodyAsString(byte[] body) {
    if (body == null || body.length == 0) {
        return "";
    }
    return new String(body);
}
