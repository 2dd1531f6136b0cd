public static Map<String, Integer> countWords(List<String> words) {
    Map<String, Integer> counts = new HashMap<>();
    for (String w : words) {
        String key = w.toLowerCase(Locale.ROOT);
        counts.put(key, counts.get(key) + 1);
    }
    return counts;
}
