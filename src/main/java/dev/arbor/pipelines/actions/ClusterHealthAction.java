package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.clusters.ClusterHealth;
import dev.arbor.clusters.ClusterHealthChecks;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import java.time.Duration;

/**
 * Cluster Health Check: the cluster's {@code status}, {@code node_count} and {@code available_resources} (and the
 * {@code reasons} behind a status other than healthy) as the step's outputs. An unhealthy cluster is an answer, not a
 * failure: the steps after it decide; only an unknown cluster fails the step.
 */
final class ClusterHealthAction {
    static final int DEFAULT_TIMEOUT_SECONDS = 30;

    private final ClusterHealthChecks clusters;

    ClusterHealthAction(ClusterHealthChecks clusters) {
        this.clusters = requireNonNull(clusters, "clusters");
    }

    Outcome run(ObjectNode params) {
        ClusterHealth health;
        try {
            health = clusters.check(
                    params.path("cluster_id").asText(),
                    Duration.ofSeconds(params.path("timeout_seconds").asLong(DEFAULT_TIMEOUT_SECONDS)));
        } catch (ApiException e) {
            return new Outcome.Failed(e.code().code(), e.problems().getFirst().message(), false);
        }
        ObjectNode outputs = Json.mapper().valueToTree(health.json());
        return new Outcome.Done(outputs);
    }
}
