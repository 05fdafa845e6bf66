package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.ratelimits.RateLimitHeaders;
import dev.arbor.platform.ratelimits.RateLimiter;
import io.javalin.http.Context;
import java.util.Optional;

/** A deployment's rate limit, one bucket per deployment whichever route reaches it (inference or decisions). */
final class DeploymentLimits {
    private final RateLimiter limits;

    DeploymentLimits(RateLimiter limits) {
        this.limits = requireNonNull(limits, "limits");
    }

    /**
     * Takes one request from the deployment's limit, when it has one, writing the limit's headers on {@code ctx}; the
     * 429 to answer when it is spent.
     */
    Optional<ApiException> take(Context ctx, DeploymentDirectory.ServedDeployment deployment) {
        if (deployment.rateLimit().isEmpty()) {
            return Optional.empty();
        }
        RateLimiter.Limit limit = deployment.rateLimit().get();
        RateLimiter.Verdict verdict = limits.take("deployment/" + deployment.id(), limit);
        RateLimitHeaders.write(ctx, verdict);
        if (verdict.allowed()) {
            return Optional.empty();
        }
        return Optional.of(RateLimitHeaders.refusal(
                verdict,
                "Deployment '" + deployment.name() + "' takes " + limit.requests() + " requests a "
                        + limit.window().wire() + "; try again in " + RateLimitHeaders.retryAfterSeconds(verdict)
                        + " s."));
    }
}
