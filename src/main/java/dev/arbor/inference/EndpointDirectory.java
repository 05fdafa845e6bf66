package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.RemoteEndpoint;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Where routing finds what an endpoint reference names: a cloud model of the registry (the platform's, any caller's) or
 * a running deployment in a project {@code inProject} accepts, both by id. Empty for a reference that names nothing
 * callable there.
 */
@FunctionalInterface
public interface EndpointDirectory {
    Optional<Target> find(Predicate<String> inProject, String endpoint);

    /** What a reference names: a cloud model's API, or a deployment (its replicas here or its cluster's Service). */
    sealed interface Target {
        record CloudModel(RemoteEndpoint endpoint) implements Target {
            public CloudModel {
                requireNonNull(endpoint, "endpoint");
            }
        }

        record Deployment(DeploymentDirectory.ServedDeployment deployment) implements Target {
            public Deployment {
                requireNonNull(deployment, "deployment");
            }
        }
    }

    /**
     * Cloud models by id, then running deployments by id in the projects {@code inProject} accepts: a router's
     * references resolve in its own project on every request, whatever was saved (a deployment that moved, or a
     * graph saved before references were checked against the project, reaches nothing elsewhere).
     */
    static EndpointDirectory of(
            Function<String, Optional<RemoteEndpoint>> cloudModels, DeploymentDirectory deployments) {
        requireNonNull(cloudModels, "cloudModels");
        requireNonNull(deployments, "deployments");
        return (inProject, endpoint) -> cloudModels
                .apply(endpoint)
                .<Target>map(Target.CloudModel::new)
                .or(() -> deployments.find(inProject, endpoint).stream()
                        .filter(deployment -> deployment.id().equals(endpoint))
                        .findFirst()
                        .map(Target.Deployment::new));
    }
}
