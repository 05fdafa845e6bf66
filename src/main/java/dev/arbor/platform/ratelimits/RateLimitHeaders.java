package dev.arbor.platform.ratelimits;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import io.javalin.http.Context;
import java.time.Duration;

/**
 * What a rate-limited answer says: {@code x-ratelimit-limit}, {@code x-ratelimit-remaining} and
 * {@code x-ratelimit-reset} (seconds until the limit is whole again) on every answer, and a refusal is 429
 * {@code rate_limited} with {@code retry-after} (seconds).
 */
public final class RateLimitHeaders {
    private RateLimitHeaders() {}

    public static void write(Context ctx, RateLimiter.Verdict verdict) {
        requireNonNull(ctx, "ctx");
        requireNonNull(verdict, "verdict");
        ctx.header("x-ratelimit-limit", Long.toString(verdict.limit()));
        ctx.header("x-ratelimit-remaining", Long.toString(verdict.remaining()));
        ctx.header("x-ratelimit-reset", Long.toString(seconds(verdict.reset())));
    }

    /** The 429 of a refused request, with {@code retry-after}; {@code message} says whose limit it is. */
    public static ApiException refusal(RateLimiter.Verdict verdict, String message) {
        return ApiException.of(ErrorCode.RATE_LIMITED, requireNonNull(message, "message"))
                .withHeader("retry-after", Long.toString(retryAfterSeconds(verdict)));
    }

    /** When a refused request may be tried again, in whole seconds (at least one). */
    public static long retryAfterSeconds(RateLimiter.Verdict verdict) {
        return Math.max(1, seconds(verdict.retryAfter()));
    }

    /** Seconds, rounded up: a client that waits that long finds the tokens there. */
    private static long seconds(Duration duration) {
        long millis = duration.toMillis();
        return (millis + 999) / 1000;
    }
}
