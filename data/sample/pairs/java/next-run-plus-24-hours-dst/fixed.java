public ZonedDateTime nextRun(ZonedDateTime lastRun) {
    ZonedDateTime next = lastRun.plusDays(1);
    if (next.isBefore(ZonedDateTime.now(lastRun.getZone()))) {
        next = ZonedDateTime.now(lastRun.getZone()).plusMinutes(1);
    }
    return next;
}
