public static int[] parse(String version) {
    String[] parts = version.split("\\.");
    int[] out = new int[3];
    for (int i = 0; i < Math.min(3, parts.length); i++) {
        out[i] = Integer.parseInt(parts[i]);
    }
    return out;
}
