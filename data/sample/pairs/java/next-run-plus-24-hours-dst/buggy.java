public ZonedDateTime nextRun(ZonedDateTime lastRun) {
    ZonedDateTime next = lastRun.plusHours(24);
    if (next.isBefore(ZonedDateTime.now(lastRun.getZone()))) {
        next = ZonedDateTime.now(lastRun.getZone()).plusMinutes(1);
    }
    return next;
}
