public static long daysUntil(ZonedDateTime now, LocalDate due) {
    return ChronoUnit.DAYS.between(now.toLocalDate(), due);
}
