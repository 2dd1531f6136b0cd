public static byte[] prefix(byte[] data, int n) {
    int len = Math.min(n, data.length);
    byte[] out = new byte[len];
    System.arraycopy(out, 0, data, 0, len);
    return out;
}
