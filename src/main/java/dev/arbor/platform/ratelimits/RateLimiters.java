package dev.arbor.platform.ratelimits;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Database;
import java.time.Clock;

/** Makes the rate limiter that fits the database. */
public final class RateLimiters {
    private RateLimiters() {}

    /**
     * In memory where one server has the database (SQLite), in the database where several may share it
     * (PostgreSQL), so that a limit holds across them.
     */
    public static RateLimiter forDatabase(Database database, Clock clock) {
        requireNonNull(database, "database");
        requireNonNull(clock, "clock");
        return database.dialect().singleNode()
                ? new MemoryRateLimiter(Buckets.meter(clock))
                : new DatabaseRateLimiter(database, Buckets.meter(clock));
    }
}
