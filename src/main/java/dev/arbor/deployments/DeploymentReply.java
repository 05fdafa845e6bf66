package dev.arbor.deployments;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A deployment as the API shows it. A setting that is off is null; {@code replicas_detail} is there only where this
 * server runs the deployment's replicas.
 */
@JsonPropertyOrder({
    "id",
    "object",
    "project_id",
    "name",
    "model_id",
    "cluster_id",
    "replicas",
    "ready_replicas",
    "auto_scaling",
    "rate_limit",
    "resources",
    "status",
    "progress",
    "endpoint_url",
    "error",
    "replicas_detail",
    "created_at",
    "updated_at"
})
record DeploymentReply(
        String id,
        @JsonProperty("project_id") @Nullable String projectId,
        String name,
        @JsonProperty("model_id") String modelId,
        @JsonProperty("cluster_id") String clusterId,
        int replicas,
        @JsonProperty("ready_replicas") int readyReplicas,
        @JsonProperty("auto_scaling") @Nullable Scaling autoScaling,
        @JsonProperty("rate_limit") @Nullable Limit rateLimit,
        @Nullable Reserved resources,
        String status,
        int progress,
        @JsonProperty("endpoint_url") @Nullable String endpointUrl,
        @Nullable String error,

        @JsonProperty("replicas_detail") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
        List<Replica> replicasDetail,

        @JsonProperty("created_at") long createdAt,
        @JsonProperty("updated_at") long updatedAt) {

    /** {@code deployment} served at {@code endpointUrl}, with its replicas where this server runs them. */
    static DeploymentReply of(Deployment deployment, Optional<String> endpointUrl, Optional<ReplicaSet> replicas) {
        Deployment.Spec spec = deployment.spec();
        return new DeploymentReply(
                deployment.id(),
                deployment.projectId().orElse(null),
                deployment.name(),
                deployment.modelId(),
                deployment.clusterId(),
                spec.replicas(),
                deployment.state().readyReplicas(),
                spec.autoScaling().map(Scaling::of).orElse(null),
                spec.rateLimit().map(Limit::of).orElse(null),
                spec.resources().map(Reserved::of).orElse(null),
                deployment.state().status().wire(),
                deployment.progress(),
                endpointUrl.orElse(null),
                deployment.state().error().orElse(null),
                replicas.map(set -> set.replicas().stream().map(Replica::of).toList())
                        .orElse(null),
                deployment.createdAt().getEpochSecond(),
                deployment.updatedAt().getEpochSecond());
    }

    @JsonProperty("object")
    String object() {
        return "deployment";
    }

    /** The autoscaling bounds and the requests in flight per replica it aims at. */
    @JsonPropertyOrder({"min_replicas", "max_replicas", "target_in_flight"})
    record Scaling(
            @JsonProperty("min_replicas") int minReplicas,
            @JsonProperty("max_replicas") int maxReplicas,
            @JsonProperty("target_in_flight") int targetInFlight) {
        static Scaling of(ReplicaSet.Autoscaling bounds) {
            return new Scaling(bounds.minReplicas(), bounds.maxReplicas(), bounds.targetInFlight());
        }
    }

    /** A rate limit, as the API shows it and the database keeps it. */
    @JsonPropertyOrder({"algorithm", "rate_limit", "time_window"})
    record Limit(
            String algorithm,
            @JsonProperty("rate_limit") long rateLimit,
            @JsonProperty("time_window") String timeWindow) {
        static Limit of(RateLimiter.Limit limit) {
            return new Limit(
                    limit.algorithm().wire(), limit.requests(), limit.window().wire());
        }
    }

    /** What each replica asks for, as the API shows it and the database keeps it; an amount left out is null. */
    @JsonPropertyOrder({"cpu", "memory_bytes", "gpus", "gpu_type"})
    record Reserved(
            @Nullable Double cpu,
            @JsonProperty("memory_bytes") @Nullable Long memoryBytes,
            int gpus,
            @JsonProperty("gpu_type") @Nullable String gpuType) {
        static Reserved of(Resources resources) {
            return new Reserved(
                    resources.cpu().orElse(null),
                    resources.memoryBytes().orElse(null),
                    resources.gpus(),
                    resources.gpuType().orElse(null));
        }
    }

    /** One replica this server runs. */
    @JsonPropertyOrder({"index", "pid", "status", "in_flight", "error"})
    record Replica(
            int index,
            long pid,
            String status,
            @JsonProperty("in_flight") int inFlight,
            @Nullable String error) {
        static Replica of(ReplicaSet.ReplicaState replica) {
            return new Replica(
                    replica.index(),
                    replica.pid(),
                    replica.status().name().toLowerCase(Locale.ROOT),
                    replica.inFlight(),
                    replica.error().orElse(null));
        }
    }
}
