package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.RemoteEndpoint;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.ratelimits.RateLimiter;
import java.net.URI;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Where inference finds the running deployments a request's {@code model} (or a router's endpoint) may name: by name
 * within the caller's projects, or by id. The deployments feature answers; {@link #NONE} knows none.
 */
@FunctionalInterface
public interface DeploymentDirectory {
    DeploymentDirectory NONE = (inProject, nameOrId) -> List.of();

    /** The running deployments called {@code nameOrId} (or with that id) in a project {@code inProject} accepts. */
    List<ServedDeployment> find(Predicate<String> inProject, String nameOrId);

    /**
     * The deployments called {@code nameOrId} (or with that id) in a project {@code inProject} accepts that do not
     * serve yet but are on their way: being deployed, started again with their server or taken over from one that
     * stopped, or scaling from no ready replica. A request naming one is told to come back, not that it does not exist.
     */
    default List<StartingDeployment> starting(Predicate<String> inProject, String nameOrId) {
        return List.of();
    }

    /**
     * The running deployments of the registry's model {@code modelId} on cluster {@code clusterId}, in a project
     * {@code inProject} accepts: what a router's {@code local_model} step chooses among. None where deployments are
     * not served.
     */
    default List<ServedDeployment> ofModel(Predicate<String> inProject, String modelId, String clusterId) {
        return List.of();
    }

    /**
     * A deployment that serves: its replicas on this machine or on another server of this database, or the
     * OpenAI-compatible Service of its pods on a Kubernetes cluster; with its rate limit when it has one.
     */
    record ServedDeployment(
            String id, String name, String projectId, Optional<RateLimiter.Limit> rateLimit, Backend backend) {
        public ServedDeployment {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(projectId, "projectId");
            requireNonNull(rateLimit, "rateLimit");
            requireNonNull(backend, "backend");
        }
    }

    /** A deployment that exists but does not serve yet, in its {@code status} (the deployments' wire spelling). */
    record StartingDeployment(String id, String name, String projectId, String status) {
        public StartingDeployment {
            requireNonNull(id, "id");
            requireNonNull(name, "name");
            requireNonNull(projectId, "projectId");
            requireNonNull(status, "status");
        }

        /** 503 {@code deployment_not_ready} at {@code model} with {@code retry-after}: what a request to it gets. */
        public ApiException notReady() {
            return ApiException.of(
                            ErrorCode.DEPLOYMENT_NOT_READY,
                            "model",
                            "Deployment '" + name + "' is " + status + " and has no ready replica yet (GET "
                                    + "/deployments/" + id + " shows its progress): retry in a moment.")
                    .withHeader("retry-after", "1");
        }
    }

    sealed interface Backend {
        record Replicas(ReplicaSet replicas) implements Backend {
            public Replicas {
                requireNonNull(replicas, "replicas");
            }
        }

        record Endpoint(RemoteEndpoint endpoint) implements Backend {
            public Endpoint {
                requireNonNull(endpoint, "endpoint");
            }
        }

        /**
         * The replicas of a local deployment another server runs ({@code server}, reached at {@code address}; none
         * when that server is gone and the deployment waits for another to take it over): the request is passed there.
         */
        record OtherServer(String server, Optional<URI> address) implements Backend {
            public OtherServer {
                requireNonNull(server, "server");
                requireNonNull(address, "address");
            }
        }
    }
}
