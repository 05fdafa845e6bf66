package dev.arbor.platform.ratelimits;

import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/** What both stores share: a limit as Bucket4j's bucket, a clock as its time meter, a probe as a verdict. */
final class Buckets {
    private Buckets() {}

    /**
     * A token bucket refills greedily (a token every window / requests); a fixed window refills all of its requests
     * at once when the window ends. Both hold at most {@code requests}.
     */
    static Bandwidth bandwidth(RateLimiter.Limit limit) {
        Duration window = limit.window().length();
        return switch (limit.algorithm()) {
            case TOKEN_BUCKET ->
                Bandwidth.builder()
                        .capacity(limit.requests())
                        .refillGreedy(limit.requests(), window)
                        .build();
            case FIXED_WINDOW ->
                Bandwidth.builder()
                        .capacity(limit.requests())
                        .refillIntervally(limit.requests(), window)
                        .build();
        };
    }

    static BucketConfiguration configuration(RateLimiter.Limit limit) {
        return BucketConfiguration.builder().addLimit(bandwidth(limit)).build();
    }

    /**
     * The bucket's name in a store: the caller's key with the limit, so that a limit changed under the same key starts
     * a bucket of its own rather than one configured otherwise.
     */
    static String name(String key, RateLimiter.Limit limit) {
        return limit.algorithm().wire() + ":" + limit.requests() + "/"
                + limit.window().wire() + ":" + key;
    }

    static TimeMeter meter(Clock clock) {
        return new TimeMeter() {
            @Override
            public long currentTimeNanos() {
                Instant now = clock.instant();
                return now.getEpochSecond() * 1_000_000_000L + now.getNano();
            }

            @Override
            public boolean isWallClockBased() {
                return true;
            }
        };
    }

    static RateLimiter.Verdict verdict(RateLimiter.Limit limit, ConsumptionProbe probe) {
        return new RateLimiter.Verdict(
                probe.isConsumed(),
                limit.requests(),
                probe.getRemainingTokens(),
                Duration.ofNanos(probe.getNanosToWaitForReset()),
                probe.isConsumed() ? Duration.ZERO : Duration.ofNanos(probe.getNanosToWaitForRefill()));
    }
}
