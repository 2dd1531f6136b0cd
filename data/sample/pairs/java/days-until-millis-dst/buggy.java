public static long daysUntil(ZonedDateTime now, LocalDate due) {
    long start = now.truncatedTo(ChronoUnit.DAYS).toInstant().toEpochMilli();
    long end = due.atStartOfDay(now.getZone()).toInstant().toEpochMilli();
    return (end - start) / (24L * 60 * 60 * 1000);
}
