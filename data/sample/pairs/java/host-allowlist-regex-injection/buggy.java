public boolean isAllowed(String host) {
    for (String domain : allowedDomains) {
        if (host.matches(".*" + domain)) {
            return true;
        }
    }
    return false;
}
