package dev.arbor.inference.steps;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Fixed-window request counts in this server's memory, by key: a limit holds per server (each server of a cluster
 * counts its own requests).
 */
final class RateLimits {
    /** Past this many keys, windows that have ended are dropped, so that keys from header values cannot pile up. */
    private static final int SWEEP_AT = 10_000;

    private final Clock clock;
    private final ConcurrentHashMap<String, Window> windows = new ConcurrentHashMap<>();

    RateLimits(Clock clock) {
        this.clock = requireNonNull(clock, "clock");
    }

    /** What one request under {@code key} came to: let through or not, with what is left and when the window ends. */
    record Verdict(boolean allowed, int limit, int remaining, long resetMillis) {}

    private record Window(long endMillis, int count) {}

    Verdict take(String key, int limit, Duration window) {
        long now = clock.millis();
        Window current = windows.compute(key, (k, w) -> {
            if (w == null || now >= w.endMillis()) {
                return new Window(now + window.toMillis(), 1);
            }
            return new Window(w.endMillis(), w.count() + 1);
        });
        if (windows.size() > SWEEP_AT) {
            windows.values().removeIf(w -> now >= w.endMillis());
        }
        return new Verdict(
                current.count() <= limit, limit, Math.max(0, limit - current.count()), current.endMillis() - now);
    }
}
