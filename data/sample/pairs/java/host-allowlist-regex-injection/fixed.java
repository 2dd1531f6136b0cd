public boolean isAllowed(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    for (String domain : allowedDomains) {
        String d = domain.toLowerCase(Locale.ROOT);
        if (h.equals(d) || h.endsWith("." + d)) {
            return true;
        }
    }
    return false;
}
