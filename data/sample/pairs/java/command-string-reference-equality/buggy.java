public boolean handle(String line) {
    String command = line.trim().toUpperCase(Locale.ROOT);
    if (command == "QUIT") {
        close();
        return false;
    }
    dispatch(command);
    return true;
}
