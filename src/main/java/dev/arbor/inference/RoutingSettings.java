package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How routing treats endpoints.
 *
 * @param timeout how long an endpoint may take to start answering, and to send each next part of its answer, unless a
 *     fallback step sets its own ({@code ARBOR_ROUTING_TIMEOUT_SECONDS}, 120 by default); for a deployment's replicas
 *     on this machine, how long embeddings may take, and each piece of a generation
 * @param failuresToCool failed attempts in a row that cool an endpoint down ({@code ARBOR_ROUTING_FAILURES_TO_COOL},
 *     3)
 * @param cooldown how long a cooled endpoint is skipped before it is tried again
 *     ({@code ARBOR_ROUTING_COOLDOWN_SECONDS}, 30)
 */
public record RoutingSettings(Duration timeout, int failuresToCool, Duration cooldown) {
    public RoutingSettings {
        requireNonNull(timeout, "timeout");
        requireNonNull(cooldown, "cooldown");
        if (failuresToCool < 1) {
            throw new IllegalArgumentException("failuresToCool must be at least 1");
        }
    }
}
