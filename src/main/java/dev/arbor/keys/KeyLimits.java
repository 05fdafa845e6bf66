package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * An inference key's limits: how many requests and how many tokens (prompt and completion together) it may use a
 * minute, each a token bucket that refills smoothly; empty: no limit of that kind.
 */
public record KeyLimits(Optional<Long> requestsPerMinute, Optional<Long> tokensPerMinute) {
    /** The most either limit may be: far above any provider's, low enough that no count overflows. */
    static final long MOST = 1_000_000_000_000L;

    public static final KeyLimits NONE = new KeyLimits(Optional.empty(), Optional.empty());

    public KeyLimits {
        requireNonNull(requestsPerMinute, "requestsPerMinute");
        requireNonNull(tokensPerMinute, "tokensPerMinute");
    }

    boolean any() {
        return requestsPerMinute.isPresent() || tokensPerMinute.isPresent();
    }
}
