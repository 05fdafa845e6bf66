package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.ratelimits.RateLimitHeaders;
import dev.arbor.platform.ratelimits.RateLimiter;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Optional;

/**
 * The limits of inference keys, requests and tokens a minute, each a token bucket of the platform's rate limiter (in
 * this server's memory on SQLite, in the database on PostgreSQL, so that every server sharing it holds one limit).
 *
 * <p>A request takes one from its key's request bucket, and one token from its token bucket, before anything is sent
 * upstream; past either it is refused, 429 {@code rate_limited} with {@code retry-after}. Its tokens are known only
 * from its answer: when it ends, the rest of them are spent from the token bucket whatever is left, which may take it
 * below empty, and then it refuses requests until it has refilled past zero. So a key spends at most its tokens a
 * minute plus what the requests admitted while it still had some then use. Every answer to a limited key carries
 * OpenAI's {@code x-ratelimit-limit-requests}, {@code x-ratelimit-remaining-requests},
 * {@code x-ratelimit-reset-requests} and the same three for tokens (a reset as OpenAI writes it: {@code 1s},
 * {@code 6m0s}, {@code 250ms}).
 */
public final class KeyRateLimits {
    private final RateLimiter limiter;

    public KeyRateLimits(RateLimiter limiter) {
        this.limiter = requireNonNull(limiter, "limiter");
    }

    /** What an admitted request owes its key's token bucket when it ends. */
    public sealed interface Admission {
        /** Spends the request's real tokens (prompt and completion); only the first call counts. */
        void spent(long tokens);
    }

    private record Unlimited() implements Admission {
        @Override
        public void spent(long tokens) {}
    }

    private static final Admission UNLIMITED = new Unlimited();

    private static final class Limited implements Admission {
        private final RateLimiter limiter;
        private final String bucket;
        private final RateLimiter.Limit limit;
        private boolean spent;

        Limited(RateLimiter limiter, String bucket, RateLimiter.Limit limit) {
            this.limiter = limiter;
            this.bucket = bucket;
            this.limit = limit;
        }

        @Override
        public synchronized void spent(long tokens) {
            if (spent) {
                return;
            }
            spent = true;
            // one token was taken on admission
            limiter.spend(bucket, limit, tokens - 1);
        }
    }

    /**
     * Admits the request of {@code ctx} under its inference key's limits (a request without a key, or of a key
     * without limits, always), writing the {@code x-ratelimit-*} headers; 429 {@code rate_limited} past a limit.
     */
    public Admission admit(Context ctx) {
        Optional<KeyScope> scope = Keys.scope(requireNonNull(ctx, "ctx"));
        if (scope.isEmpty() || !scope.get().limits().any()) {
            return UNLIMITED;
        }
        String keyId = scope.get().keyId();
        KeyLimits limits = scope.get().limits();
        if (limits.requestsPerMinute().isPresent()) {
            var limit = perMinute(limits.requestsPerMinute().get());
            RateLimiter.Verdict verdict = limiter.take("key-requests:" + keyId, limit);
            write(ctx, "requests", verdict);
            if (!verdict.allowed()) {
                throw RateLimitHeaders.refusal(
                        verdict,
                        "Inference key '" + keyId + "' may make " + limit.requests()
                                + " requests a minute; try again in " + RateLimitHeaders.retryAfterSeconds(verdict)
                                + " s.");
            }
        }
        if (limits.tokensPerMinute().isEmpty()) {
            return UNLIMITED;
        }
        var limit = perMinute(limits.tokensPerMinute().get());
        String bucket = "key-tokens:" + keyId;
        RateLimiter.Verdict verdict = limiter.take(bucket, limit);
        write(ctx, "tokens", verdict);
        if (!verdict.allowed()) {
            throw RateLimitHeaders.refusal(
                    verdict,
                    "Inference key '" + keyId + "' may use " + limit.requests()
                            + " tokens a minute and has used them; try again in "
                            + RateLimitHeaders.retryAfterSeconds(verdict) + " s.");
        }
        return new Limited(limiter, bucket, limit);
    }

    private static RateLimiter.Limit perMinute(long amount) {
        return new RateLimiter.Limit(RateLimiter.Algorithm.TOKEN_BUCKET, amount, RateLimiter.Window.MINUTE);
    }

    private static void write(Context ctx, String kind, RateLimiter.Verdict verdict) {
        ctx.header("x-ratelimit-limit-" + kind, Long.toString(verdict.limit()));
        ctx.header("x-ratelimit-remaining-" + kind, Long.toString(Math.max(0, verdict.remaining())));
        ctx.header("x-ratelimit-reset-" + kind, openAiDuration(verdict.reset()));
    }

    /** A duration as OpenAI's headers write it (Go's style, to the millisecond): {@code 250ms}, {@code 6m0s}. */
    static String openAiDuration(Duration duration) {
        long millis = Math.max(0, (duration.toNanos() + 999_999) / 1_000_000);
        if (millis < 1000) {
            return millis + "ms";
        }
        long minutes = millis / 60_000;
        long rest = millis % 60_000;
        String seconds = rest % 1000 == 0
                ? Long.toString(rest / 1000)
                : java.math.BigDecimal.valueOf(rest, 3).stripTrailingZeros().toPlainString();
        return (minutes > 0 ? minutes + "m" : "") + seconds + "s";
    }
}
