package dev.arbor.platform.ratelimits;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Counts requests against limits by key. On SQLite the counts live in this server's memory; on PostgreSQL they live in
 * the database, so every server of a cluster enforces one limit.
 */
public interface RateLimiter {
    /** Takes one request under {@code key}; the verdict says whether it may go, and what is left. */
    Verdict take(String key, Limit limit);

    /**
     * Spends {@code amount} under {@code key} whatever is left: a bucket may go below empty, and refuses takes until
     * it has refilled past zero (for amounts known only afterwards, such as a request's tokens).
     */
    void spend(String key, Limit limit, long amount);

    enum Algorithm {
        TOKEN_BUCKET,
        FIXED_WINDOW;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Algorithm> of(String wire) {
            return Arrays.stream(values()).filter(a -> a.wire().equals(wire)).findFirst();
        }
    }

    enum Window {
        SECOND(Duration.ofSeconds(1)),
        MINUTE(Duration.ofMinutes(1)),
        HOUR(Duration.ofHours(1));

        private final Duration length;

        Window(Duration length) {
            this.length = length;
        }

        public Duration length() {
            return length;
        }

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static Optional<Window> of(String wire) {
            return Arrays.stream(values()).filter(w -> w.wire().equals(wire)).findFirst();
        }
    }

    /** {@code requests} per {@code window}: a token bucket refills smoothly, a fixed window all at once. */
    record Limit(Algorithm algorithm, long requests, Window window) {
        public Limit {
            requireNonNull(algorithm, "algorithm");
            requireNonNull(window, "window");
            if (requests < 1) {
                throw new IllegalArgumentException("a limit allows at least one request");
            }
        }
    }

    /**
     * @param reset until the limit is whole again (the {@code x-ratelimit-reset} header, in seconds rounded up)
     * @param retryAfter until a refused request may be tried again (zero when allowed)
     */
    record Verdict(boolean allowed, long limit, long remaining, Duration reset, Duration retryAfter) {
        public Verdict {
            requireNonNull(reset, "reset");
            requireNonNull(retryAfter, "retryAfter");
        }
    }
}
