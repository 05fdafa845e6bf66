package dev.arbor.inference.spend;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What {@code GET /spend} adds up: the usage rows of these projects (every project's when empty) at or after
 * {@code fromMillis} and before {@code toMillis}, grouped by the dimensions asked, in their order.
 */
record SpendQuery(Optional<Set<String>> projects, long fromMillis, long toMillis, List<Dimension> groupBy) {
    SpendQuery {
        requireNonNull(projects, "projects");
        projects = projects.map(Set::copyOf);
        groupBy = List.copyOf(groupBy);
    }

    /** What rows may be grouped by; a period is a calendar day, ISO week (from Monday) or month, in UTC. */
    enum Dimension {
        KEY("key_id"),
        PROJECT("project_id"),
        ROUTER("router_id"),
        MODEL("model"),
        ENDPOINT("endpoint"),
        DAY("day"),
        WEEK("week"),
        MONTH("month");

        private final String column;

        Dimension(String column) {
            this.column = column;
        }

        /** The name a request's {@code group_by} gives it. */
        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The field a row names its value with. */
        String column() {
            return column;
        }

        boolean period() {
            return this == DAY || this == WEEK || this == MONTH;
        }

        static Optional<Dimension> of(String wire) {
            for (Dimension d : values()) {
                if (d.wire().equals(wire)) {
                    return Optional.of(d);
                }
            }
            return Optional.empty();
        }
    }
}
