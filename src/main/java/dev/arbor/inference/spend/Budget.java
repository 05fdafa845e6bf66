package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A cap on what a project, one of its inference keys or one of its routers may spend: USD (as pico-dollars) and/or
 * tokens, per calendar period in a time zone, or in total.
 */
record Budget(
        String id,
        String projectId,
        Scope scope,
        String scopeId,
        OptionalLong usdPicos,
        OptionalLong tokens,
        Period period,
        ZoneId zone,
        long createdAtMillis) {
    Budget {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(scope, "scope");
        requireNonNull(scopeId, "scopeId");
        requireNonNull(period, "period");
        requireNonNull(zone, "zone");
    }

    enum Scope {
        PROJECT,
        KEY,
        ROUTER;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    enum Period {
        DAY,
        WEEK,
        MONTH,
        TOTAL;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The start of the period {@code nowMillis} is in (Unix millis); 0 for a total budget. */
    long periodStart(long nowMillis) {
        if (period == Period.TOTAL) {
            return 0;
        }
        LocalDate today = Instant.ofEpochMilli(nowMillis).atZone(zone).toLocalDate();
        LocalDate first = switch (period) {
            case DAY -> today;
            case WEEK -> today.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
            case MONTH -> today.withDayOfMonth(1);
            case TOTAL -> throw new IllegalStateException("a total budget has no periods");
        };
        return first.atStartOfDay(zone).toInstant().toEpochMilli();
    }

    /** When the period {@code nowMillis} is in ends, the next one starting; empty for a total budget. */
    Optional<Instant> resetsAt(long nowMillis) {
        if (period == Period.TOTAL) {
            return Optional.empty();
        }
        LocalDate first =
                Instant.ofEpochMilli(periodStart(nowMillis)).atZone(zone).toLocalDate();
        LocalDate next = switch (period) {
            case DAY -> first.plusDays(1);
            case WEEK -> first.plusWeeks(1);
            case MONTH -> first.plusMonths(1);
            case TOTAL -> throw new IllegalStateException("a total budget has no periods");
        };
        return Optional.of(next.atStartOfDay(zone).toInstant());
    }

    /** How a message names it: "the key budget bgt_... (10 USD and 1000000 tokens a day in Europe/Paris)". */
    String describe() {
        var limits = new StringBuilder();
        usdPicos.ifPresent(
                picos -> limits.append(Price.usdOfPicos(picos).toPlainString()).append(" USD"));
        tokens.ifPresent(
                t -> limits.append(limits.isEmpty() ? "" : " and ").append(t).append(" tokens"));
        String per = period == Period.TOTAL ? " in total" : " a " + period.wire() + " in " + zone.getId();
        return "the " + scope.wire() + " budget " + id + " (" + limits + per + ")";
    }
}
