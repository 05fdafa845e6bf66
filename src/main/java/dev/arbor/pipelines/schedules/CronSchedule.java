package dev.arbor.pipelines.schedules;

import static java.util.Objects.requireNonNull;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.zone.ZoneOffsetTransition;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A cron expression (five fields: minute, hour, day of month, month, day of week) read in a time zone. Across a
 * daylight-saving change it does what a person reading the clock expects: a time that happens twice (clocks go back)
 * fires once, every-hour schedules keep firing every real hour, and a time that does not happen that day (clocks go
 * forward) fires once at the moment the clocks jump, instead of being lost for the day.
 */
final class CronSchedule {
    private static final CronParser PARSER = new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.UNIX));

    private final String expression;
    private final ZoneId zone;
    private final ExecutionTime times;

    private CronSchedule(String expression, ZoneId zone, ExecutionTime times) {
        this.expression = expression;
        this.zone = zone;
        this.times = times;
    }

    /** Parses an expression; the exception's message says what is wrong with it. */
    static CronSchedule parse(String expression, ZoneId zone) {
        requireNonNull(zone, "zone");
        var cron = PARSER.parse(expression.trim());
        cron.validate();
        return new CronSchedule(expression.trim(), zone, ExecutionTime.forCron(cron));
    }

    String expression() {
        return expression;
    }

    ZoneId zone() {
        return zone;
    }

    /** The first firing strictly after {@code after}; empty for an expression that never fires again. */
    Optional<Instant> next(Instant after) {
        ZonedDateTime from = after.atZone(zone);
        Optional<Instant> next = times.nextExecution(from).map(ZonedDateTime::toInstant);
        ZoneOffsetTransition transition = zone.getRules().nextTransition(after);
        if (transition != null
                && transition.isGap()
                && next.map(n -> transition.getInstant().isBefore(n)).orElse(true)
                && matchesWithin(transition.getDateTimeBefore(), transition.getDateTimeAfter())) {
            return Optional.of(transition.getInstant());
        }
        return next;
    }

    /** The next {@code count} firings after {@code after}. */
    List<Instant> next(Instant after, int count) {
        var firings = new ArrayList<Instant>();
        Instant at = after;
        while (firings.size() < count) {
            Optional<Instant> next = next(at);
            if (next.isEmpty()) {
                break;
            }
            firings.add(next.get());
            at = next.get();
        }
        return firings;
    }

    /** Whether a wall-clock minute in [from, to) matches: the minutes a spring-forward change skips. */
    private boolean matchesWithin(LocalDateTime from, LocalDateTime to) {
        for (LocalDateTime minute = from.truncatedTo(ChronoUnit.MINUTES);
                minute.isBefore(to);
                minute = minute.plusMinutes(1)) {
            if (times.isMatch(minute.atZone(ZoneOffset.UTC))) {
                return true;
            }
        }
        return false;
    }
}
