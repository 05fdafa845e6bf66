package dev.arbor.inference.endpoints;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * How a router step treats each endpoint it sends a request to: its timeouts (each one the step leaves out is the
 * endpoint's own, else the server's), the statuses it retries on the same endpoint before the next one's turn, a hedge
 * (for a fallback chain: the next endpoint gets the request too when the first is slow to start answering), and how
 * much of a stream it holds back before the caller sees any of it, so that an early failure can still fall back.
 */
public record AttemptPolicy(Timeouts timeouts, Retries retries, Optional<Duration> hedgeAfter, HoldBack holdBack) {
    /** The server's timeouts, no retry, no hedge, a stream passed on from its first event. */
    public static final AttemptPolicy DEFAULT =
            new AttemptPolicy(Timeouts.UNSET, Retries.NONE, Optional.empty(), HoldBack.FIRST_EVENT);

    public AttemptPolicy {
        requireNonNull(timeouts, "timeouts");
        requireNonNull(retries, "retries");
        requireNonNull(hedgeAfter, "hedgeAfter");
        requireNonNull(holdBack, "holdBack");
    }

    /**
     * Timeouts of one attempt, each optional (unset: the next level's): {@code connect} until a connection is made,
     * {@code firstByte} until a stream's first event (an answer that does not stream: until all of it), {@code idle}
     * between a stream's events, {@code total} for all of an attempt.
     */
    public record Timeouts(
            Optional<Duration> connect,
            Optional<Duration> firstByte,
            Optional<Duration> idle,
            Optional<Duration> total) {
        public static final Timeouts UNSET =
                new Timeouts(Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty());

        public Timeouts {
            requireNonNull(connect, "connect");
            requireNonNull(firstByte, "firstByte");
            requireNonNull(idle, "idle");
            requireNonNull(total, "total");
        }

        /** These, with each one unset taken from {@code under}. */
        public Timeouts over(Timeouts under) {
            return new Timeouts(
                    connect.or(under::connect),
                    firstByte.or(under::firstByte),
                    idle.or(under::idle),
                    total.or(under::total));
        }

        /** Every timeout set: these over {@code defaults}, which are all set. */
        public Deadlines resolve(Deadlines defaults) {
            return new Deadlines(
                    connect.orElse(defaults.connect()),
                    firstByte.orElse(defaults.firstByte()),
                    idle.orElse(defaults.idle()),
                    total.orElse(defaults.total()));
        }
    }

    /** Every timeout of an attempt, set. */
    public record Deadlines(Duration connect, Duration firstByte, Duration idle, Duration total) {
        public Deadlines {
            for (Duration d : new Duration[] {connect, firstByte, idle, total}) {
                if (d.isNegative() || d.isZero()) {
                    throw new IllegalArgumentException("a timeout must be positive: " + d);
                }
            }
        }
    }

    /**
     * Retries on the same endpoint: up to {@code max} more attempts after an answer whose status is listed, each after
     * a pause that doubles from {@code backoff} (with jitter: between half of it and all of it), or after the
     * endpoint's {@code retry-after} when it sends one no longer than {@code retryAfterCap} (a longer one moves on).
     */
    public record Retries(Set<Integer> statuses, int max, Duration backoff, Duration retryAfterCap) {
        public static final Retries NONE = new Retries(Set.of(), 0, Duration.ofMillis(200), Duration.ofSeconds(10));

        public Retries {
            statuses = Set.copyOf(statuses);
            requireNonNull(backoff, "backoff");
            requireNonNull(retryAfterCap, "retryAfterCap");
            if (max < 0) {
                throw new IllegalArgumentException("retries cannot be negative: " + max);
            }
        }
    }

    /**
     * How much of a stream waits before the caller sees it: at least its first event, and then until {@code tokens}
     * chunks with content came and {@code time} passed since the first (whichever comes later; the stream's end ends
     * the wait too). A failure while it waits falls back as one before the first byte.
     */
    public record HoldBack(int tokens, Duration time) {
        public static final HoldBack FIRST_EVENT = new HoldBack(0, Duration.ZERO);

        public HoldBack {
            requireNonNull(time, "time");
            if (tokens < 0 || time.isNegative()) {
                throw new IllegalArgumentException("a hold-back cannot be negative");
            }
        }
    }
}
