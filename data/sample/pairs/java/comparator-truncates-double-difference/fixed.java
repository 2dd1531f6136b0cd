public static List<double[]> nearest(List<double[]> points, double ox, double oy, int k) {
    List<double[]> sorted = new ArrayList<>(points);
    sorted.sort((p, q) -> Double.compare(Math.hypot(p[0] - ox, p[1] - oy),
            Math.hypot(q[0] - ox, q[1] - oy)));
    return sorted.subList(0, Math.min(k, sorted.size()));
}
