package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Clusters;
import dev.arbor.models.ReplicaSet;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.time.Instant;
import java.util.Optional;

/**
 * A stored deployment.
 *
 * @param projectId the project it belongs to; none for one an admin or a pipeline made outside any project, which
 *     only admins see
 * @param replicas the replicas asked for (autoscaling, when on, moves the running count between its bounds)
 * @param endpointUrl where it answers: this server's OpenAI surface on {@code local}, the Service on Kubernetes
 * @param serverInstance the server that runs a local deployment's replicas
 * @param resources what each replica asks for, when the deployment says
 */
record Deployment(
        String id,
        Optional<String> projectId,
        String name,
        String modelId,
        String clusterId,
        int replicas,
        int readyReplicas,
        Optional<ReplicaSet.Autoscaling> autoScaling,
        Optional<RateLimiter.Limit> rateLimit,
        Optional<Resources> resources,
        DeploymentStatus status,
        Optional<String> error,
        Optional<String> endpointUrl,
        Optional<String> serverInstance,
        Instant createdAt,
        Instant updatedAt) {
    Deployment {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(name, "name");
        requireNonNull(modelId, "modelId");
        requireNonNull(clusterId, "clusterId");
        requireNonNull(autoScaling, "autoScaling");
        requireNonNull(rateLimit, "rateLimit");
        requireNonNull(resources, "resources");
        requireNonNull(status, "status");
        requireNonNull(error, "error");
        requireNonNull(endpointUrl, "endpointUrl");
        requireNonNull(serverInstance, "serverInstance");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(updatedAt, "updatedAt");
    }

    boolean local() {
        return clusterId.equals(Clusters.LOCAL);
    }

    /** Whether requests go to it: running, or scaling with ready replicas to answer them. */
    boolean serves() {
        return status.serves() && !(status == DeploymentStatus.SCALING && readyReplicas == 0);
    }

    /** Progress of the work under way, 0 to 100: the ready share of the replicas asked for; 100 once settled. */
    int progress() {
        if (status.settled()) {
            return 100;
        }
        if (status == DeploymentStatus.PENDING || status == DeploymentStatus.DELETING) {
            return 0;
        }
        return Math.min(100, readyReplicas * 100 / Math.max(1, replicas));
    }

    Deployment withState(DeploymentStatus newStatus, int ready, Optional<String> newError) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                ready,
                autoScaling,
                rateLimit,
                resources,
                newStatus,
                newError,
                endpointUrl,
                serverInstance,
                createdAt,
                updatedAt);
    }

    Deployment withReplicas(int asked) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                asked,
                readyReplicas,
                autoScaling,
                rateLimit,
                resources,
                status,
                error,
                endpointUrl,
                serverInstance,
                createdAt,
                updatedAt);
    }

    Deployment withAutoScaling(Optional<ReplicaSet.Autoscaling> scaling) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                scaling,
                rateLimit,
                resources,
                status,
                error,
                endpointUrl,
                serverInstance,
                createdAt,
                updatedAt);
    }

    Deployment withRateLimit(Optional<RateLimiter.Limit> limit) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                autoScaling,
                limit,
                resources,
                status,
                error,
                endpointUrl,
                serverInstance,
                createdAt,
                updatedAt);
    }

    Deployment withEndpoint(Optional<String> url) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                autoScaling,
                rateLimit,
                resources,
                status,
                error,
                url,
                serverInstance,
                createdAt,
                updatedAt);
    }

    Deployment withServer(Optional<String> server) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                autoScaling,
                rateLimit,
                resources,
                status,
                error,
                endpointUrl,
                server,
                createdAt,
                updatedAt);
    }

    Deployment withUpdatedAt(Instant at) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                autoScaling,
                rateLimit,
                resources,
                status,
                error,
                endpointUrl,
                serverInstance,
                createdAt,
                at);
    }

    Deployment withResources(Optional<Resources> asked) {
        return new Deployment(
                id,
                projectId,
                name,
                modelId,
                clusterId,
                replicas,
                readyReplicas,
                autoScaling,
                rateLimit,
                asked,
                status,
                error,
                endpointUrl,
                serverInstance,
                createdAt,
                updatedAt);
    }
}
