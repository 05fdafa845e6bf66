package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.util.Optional;

/**
 * What a change to a deployment sets. Each setting is empty when the change leaves it as it is; the three groups hold
 * an empty value when the change turns them off.
 */
record DeploymentChange(
        Optional<Integer> replicas,
        Optional<Optional<ReplicaSet.Autoscaling>> autoScaling,
        Optional<Optional<RateLimiter.Limit>> rateLimit,
        Optional<Optional<Resources>> resources) {
    DeploymentChange {
        requireNonNull(replicas, "replicas");
        requireNonNull(autoScaling, "autoScaling");
        requireNonNull(rateLimit, "rateLimit");
        requireNonNull(resources, "resources");
    }
}
