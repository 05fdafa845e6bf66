package dev.arbor.inference.spend;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneId;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** A budget's periods are calendar periods in its time zone, an IANA name or a fixed offset to the second. */
class BudgetTest {
    static Stream<Arguments> periods() {
        return Stream.of(
                Arguments.of("day", "+05:45", "2026-11-29T20:00:00Z", "2026-11-29T18:15:00Z", "2026-11-30T18:15:00Z"),
                Arguments.of(
                        "day", "-03:17:30", "2026-11-29T02:00:00Z", "2026-11-28T03:17:30Z", "2026-11-29T03:17:30Z"),
                Arguments.of(
                        "week", "Europe/Paris", "2026-11-29T12:00:00Z", "2026-11-22T23:00:00Z", "2026-11-29T23:00:00Z"),
                Arguments.of(
                        "month",
                        "America/New_York",
                        "2026-03-31T12:00:00Z",
                        "2026-03-01T05:00:00Z",
                        "2026-04-01T04:00:00Z"),
                Arguments.of("month", "UTC", "2026-12-31T23:59:59Z", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z"));
    }

    @ParameterizedTest(name = "{0} in {1} at {2}")
    @MethodSource("periods")
    void aPeriodStartsAndResetsAtTheCalendarsBoundaryInItsZone(
            String period, String zone, String now, String start, String resets) {
        var budget = new Budget(
                "bgt_1",
                "prj_1",
                Budget.Scope.PROJECT,
                "prj_1",
                OptionalLong.empty(),
                OptionalLong.of(10),
                Budget.Period.valueOf(period.toUpperCase(java.util.Locale.ROOT)),
                ZoneId.of(zone),
                0);
        long at = Instant.parse(now).toEpochMilli();

        assertThat(Instant.ofEpochMilli(budget.periodStart(at))).isEqualTo(Instant.parse(start));
        assertThat(budget.resetsAt(at)).contains(Instant.parse(resets));
    }
}
