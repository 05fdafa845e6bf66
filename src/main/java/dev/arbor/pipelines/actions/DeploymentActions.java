package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.clusters.Clusters;
import dev.arbor.deployments.Deployments;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.time.Duration;
import java.util.Optional;

/**
 * The deployment actions, on the deployments of this server: Deploy Model (waits until the deployment runs or fails,
 * within the step's timeout), Scale Deployment, Configure Rate Limiting and Delete Deployment. Each is safe to run
 * again: a deployment of that name in the project counts as deployed, one gone as deleted. A deployment a step makes
 * belongs to the project its {@code project_id} names; without one (pipelines belong to no project) it is in no
 * project, which only admins see.
 */
final class DeploymentActions {
    /** How long one look at a deploying deployment waits; the step's timeout ends the whole wait. */
    private static final Duration WAIT_STEP = Duration.ofSeconds(30);

    private final Deployments deployments;

    DeploymentActions(Deployments deployments) {
        this.deployments = requireNonNull(deployments, "deployments");
    }

    Outcome deploy(ObjectNode params) throws InterruptedException {
        Optional<ReplicaSet.Autoscaling> autoScaling;
        try {
            autoScaling = autoScaling(params.path("auto_scaling"));
        } catch (IllegalArgumentException e) {
            return new Outcome.Failed("invalid_params", "`auto_scaling` " + e.getMessage() + ".", false);
        }
        Deployments.Snapshot deployment;
        try {
            deployment = deployments.deploy(
                    Optional.of(params.path("project_id").asText("")).filter(id -> !id.isBlank()),
                    params.path("deployment_name").asText(),
                    params.path("model_id").asText(),
                    params.path("cluster_id").asText(Clusters.LOCAL),
                    params.path("replicas").asInt(1),
                    autoScaling);
        } catch (ApiException e) {
            return failed(e);
        }
        while (!deployment.running() && !deployment.failed()) {
            Optional<Deployments.Snapshot> now = deployments.awaitSettled(deployment.id(), WAIT_STEP);
            if (now.isEmpty()) {
                return new Outcome.Failed(
                        "deployment_not_found", "The deployment was deleted while it deployed.", false);
            }
            deployment = now.get();
        }
        if (deployment.failed()) {
            return new Outcome.Failed(
                    "deployment_failed",
                    "The deployment '" + deployment.name() + "' failed: "
                            + deployment.error().orElse("no reason given"),
                    false);
        }
        return new Outcome.Done(Json.object()
                .put("deployment_id", deployment.id())
                .put("endpoint_url", deployment.endpointUrl().orElse(""))
                .put("status", deployment.status()));
    }

    Outcome scale(ObjectNode params) {
        try {
            Optional<Deployments.Snapshot> found = find(params);
            if (found.isEmpty()) {
                return missing(params);
            }
            Deployments.Snapshot scaled = deployments.scaleTo(
                    found.get().id(), params.path("replicas").asInt());
            return new Outcome.Done(Json.object()
                    .put("previous_replicas", found.get().replicas())
                    .put("current_replicas", scaled.replicas()));
        } catch (ApiException e) {
            return failed(e);
        }
    }

    Outcome rateLimit(ObjectNode params) {
        var limit = new RateLimiter.Limit(
                RateLimiter.Algorithm.of(params.path("algorithm").asText("token_bucket"))
                        .orElseThrow(),
                params.path("rate_limit").asLong(),
                RateLimiter.Window.of(params.path("time_window").asText("minute"))
                        .orElseThrow());
        try {
            Optional<Deployments.Snapshot> found = find(params);
            if (found.isEmpty()) {
                return missing(params);
            }
            deployments.rateLimit(found.get().id(), limit);
            return new Outcome.Done(Json.object());
        } catch (ApiException e) {
            return failed(e);
        }
    }

    Outcome delete(ObjectNode params) {
        try {
            find(params).ifPresent(found -> deployments.deleteIfPresent(found.id()));
            return new Outcome.Done(Json.object()); // gone already: a repeat of this step, or deleted by hand
        } catch (ApiException e) {
            return failed(e);
        }
    }

    private Optional<Deployments.Snapshot> find(ObjectNode params) {
        return deployments.lookup(params.path("deployment_id").asText());
    }

    private static Outcome missing(ObjectNode params) {
        return new Outcome.Failed(
                "deployment_not_found",
                "There is no deployment '" + params.path("deployment_id").asText() + "'.",
                false);
    }

    /** The {@code auto_scaling} param: {@code {min_replicas, max_replicas, target_in_flight}}, or none. */
    private static Optional<ReplicaSet.Autoscaling> autoScaling(JsonNode value) {
        if (value.isMissingNode() || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isObject()
                || !value.path("min_replicas").canConvertToExactIntegral()
                || !value.path("max_replicas").canConvertToExactIntegral()
                || !value.path("target_in_flight").canConvertToExactIntegral()) {
            throw new IllegalArgumentException(
                    "must be an object of whole numbers: {min_replicas, max_replicas, target_in_flight}");
        }
        return Optional.of(new ReplicaSet.Autoscaling(
                value.path("min_replicas").asInt(),
                value.path("max_replicas").asInt(),
                value.path("target_in_flight").asInt()));
    }

    /** A refusal of the deployments as a step failure: retried only when they were unavailable (503, 504). */
    private static Outcome.Failed failed(ApiException e) {
        return new Outcome.Failed(e.code().code(), e.problems().getFirst().message(), e.status() >= 503);
    }
}
