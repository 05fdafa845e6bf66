package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.inference.endpoints.AttemptPolicy;
import java.time.Duration;

/**
 * How routing treats endpoints.
 *
 * @param timeout how long an endpoint may take to start answering (a stream's first event, or all of an answer that
 *     does not stream), and to send each next part of a stream, unless the router's step sets its own
 *     ({@code ARBOR_ROUTING_TIMEOUT_SECONDS}, 120 by default); for a deployment's replicas on this machine, how long
 *     embeddings may take, and each piece of a generation
 * @param failuresToCool failed attempts in a row that cool an endpoint down ({@code ARBOR_ROUTING_FAILURES_TO_COOL},
 *     3)
 * @param cooldown how long a cooled endpoint is skipped before it is tried again
 *     ({@code ARBOR_ROUTING_COOLDOWN_SECONDS}, 30)
 * @param connectTimeout how long a connection to an endpoint may take ({@code ARBOR_ROUTING_CONNECT_TIMEOUT_SECONDS},
 *     10)
 * @param totalTimeout how long one attempt may take in all, a stream to its end
 *     ({@code ARBOR_ROUTING_TOTAL_TIMEOUT_SECONDS}, 600)
 */
public record RoutingSettings(
        Duration timeout, int failuresToCool, Duration cooldown, Duration connectTimeout, Duration totalTimeout) {
    public RoutingSettings {
        requireNonNull(timeout, "timeout");
        requireNonNull(cooldown, "cooldown");
        requireNonNull(connectTimeout, "connectTimeout");
        requireNonNull(totalTimeout, "totalTimeout");
        if (failuresToCool < 1) {
            throw new IllegalArgumentException("failuresToCool must be at least 1");
        }
    }

    /** With the default connect (10 s) and total (600 s) timeouts. */
    public RoutingSettings(Duration timeout, int failuresToCool, Duration cooldown) {
        this(timeout, failuresToCool, cooldown, Duration.ofSeconds(10), Duration.ofSeconds(600));
    }

    /** The server's timeouts for every attempt, under what an endpoint or a step sets. */
    AttemptPolicy.Deadlines deadlines() {
        return new AttemptPolicy.Deadlines(connectTimeout, timeout, timeout, totalTimeout);
    }
}
