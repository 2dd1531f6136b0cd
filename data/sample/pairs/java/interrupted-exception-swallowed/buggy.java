public static void pause(long millis) {
    try {
        Thread.sleep(millis);
    } catch (InterruptedException e) {
    }
}
