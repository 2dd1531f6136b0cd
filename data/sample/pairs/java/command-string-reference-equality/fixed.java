public boolean handle(String line) {
    String command = line.trim().toUpperCase(Locale.ROOT);
    if ("QUIT".equals(command)) {
        close();
        return false;
    }
    dispatch(command);
    return true;
}
