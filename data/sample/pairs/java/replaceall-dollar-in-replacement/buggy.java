public static String render(String template, Map<String, String> values) {
    String out = template;
    for (Map.Entry<String, String> e : values.entrySet()) {
        out = out.replaceAll("\\{\\{" + e.getKey() + "\\}\\}", e.getValue());
    }
    return out;
}
