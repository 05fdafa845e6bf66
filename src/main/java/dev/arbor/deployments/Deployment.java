package dev.arbor.deployments;

import static java.util.Objects.requireNonNull;

import dev.arbor.clusters.Clusters;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.time.Instant;
import java.util.Optional;

/**
 * A stored deployment: what never changes (its name, model, cluster and project), what it asks for ({@link Spec}) and
 * where it stands ({@link State}), so that a change to one part keeps the others as they are.
 *
 * @param projectId the project it belongs to; none for one an admin or a pipeline made outside any project, which
 *     only admins see
 */
record Deployment(
        String id,
        Optional<String> projectId,
        String name,
        String modelId,
        String clusterId,
        Spec spec,
        State state,
        Instant createdAt,
        Instant updatedAt) {
    Deployment {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(name, "name");
        requireNonNull(modelId, "modelId");
        requireNonNull(clusterId, "clusterId");
        requireNonNull(spec, "spec");
        requireNonNull(state, "state");
        requireNonNull(createdAt, "createdAt");
        requireNonNull(updatedAt, "updatedAt");
    }

    /**
     * What a deployment asks for, as its requests set it.
     *
     * @param replicas the replicas asked for (autoscaling, when on, moves the running count between its bounds)
     * @param resources what each replica asks for, when the deployment says
     */
    record Spec(
            int replicas,
            Optional<ReplicaSet.Autoscaling> autoScaling,
            Optional<RateLimiter.Limit> rateLimit,
            Optional<Resources> resources) {
        Spec {
            requireNonNull(autoScaling, "autoScaling");
            requireNonNull(rateLimit, "rateLimit");
            requireNonNull(resources, "resources");
        }

        Spec withReplicas(int asked) {
            return new Spec(asked, autoScaling, rateLimit, resources);
        }

        Spec withAutoScaling(Optional<ReplicaSet.Autoscaling> scaling) {
            return new Spec(replicas, scaling, rateLimit, resources);
        }

        Spec withRateLimit(Optional<RateLimiter.Limit> limit) {
            return new Spec(replicas, autoScaling, limit, resources);
        }

        Spec withResources(Optional<Resources> asked) {
            return new Spec(replicas, autoScaling, rateLimit, asked);
        }
    }

    /**
     * Where a deployment stands, as its replicas or pods report and the servers that run them record.
     *
     * @param endpointUrl where a Kubernetes deployment answers: the Service the cluster gave
     * @param serverInstance the server that runs a local deployment's replicas
     */
    record State(
            DeploymentStatus status,
            int readyReplicas,
            Optional<String> error,
            Optional<String> endpointUrl,
            Optional<String> serverInstance) {
        State {
            requireNonNull(status, "status");
            requireNonNull(error, "error");
            requireNonNull(endpointUrl, "endpointUrl");
            requireNonNull(serverInstance, "serverInstance");
        }

        /** The status, ready replicas and error its work came to; where it answers and runs as they were. */
        State moved(DeploymentStatus newStatus, int ready, Optional<String> newError) {
            return new State(newStatus, ready, newError, endpointUrl, serverInstance);
        }

        State withEndpoint(Optional<String> url) {
            return new State(status, readyReplicas, error, url, serverInstance);
        }

        State withServer(Optional<String> server) {
            return new State(status, readyReplicas, error, endpointUrl, server);
        }
    }

    Deployment with(Spec changed) {
        return new Deployment(id, projectId, name, modelId, clusterId, changed, state, createdAt, updatedAt);
    }

    Deployment with(State changed) {
        return new Deployment(id, projectId, name, modelId, clusterId, spec, changed, createdAt, updatedAt);
    }

    /** {@link State#moved} on its state. */
    Deployment moved(DeploymentStatus newStatus, int ready, Optional<String> newError) {
        return with(state.moved(newStatus, ready, newError));
    }

    Deployment withUpdatedAt(Instant at) {
        return new Deployment(id, projectId, name, modelId, clusterId, spec, state, createdAt, at);
    }

    boolean local() {
        return clusterId.equals(Clusters.LOCAL);
    }

    /** Whether requests go to it: running, or scaling with ready replicas to answer them. */
    boolean serves() {
        return state.status().serves() && !(state.status() == DeploymentStatus.SCALING && state.readyReplicas() == 0);
    }

    /** Progress of the work under way, 0 to 100: the ready share of the replicas asked for; 100 once settled. */
    int progress() {
        DeploymentStatus status = state.status();
        if (status.settled()) {
            return 100;
        }
        if (status == DeploymentStatus.PENDING || status == DeploymentStatus.DELETING) {
            return 0;
        }
        return Math.min(100, state.readyReplicas() * 100 / Math.max(1, spec.replicas()));
    }
}
