public static String charsetOf(String header) {
    if (header == null) {
        return "UTF-8";
    }
    for (String part : header.split(";")) {
        String p = part.trim();
        if (p.regionMatches(true, 0, "charset=", 0, 8)) {
            return p.substring(8).replace("\"", "");
        }
    }
    return "UTF-8";
}
