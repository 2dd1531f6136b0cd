public static Map<String, Integer> countWords(List<String> words) {
    Map<String, Integer> counts = new HashMap<>();
    for (String w : words) {
        String key = w.toLowerCase(Locale.ROOT);
        counts.merge(key, 1, Integer::sum);
    }
    return counts;
}
