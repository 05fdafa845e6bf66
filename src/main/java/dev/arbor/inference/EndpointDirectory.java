package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.RemoteEndpoint;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where routing finds what an endpoint reference names: a cloud model of the registry or a running deployment, both
 * by id. Empty for a reference that names nothing callable.
 */
@FunctionalInterface
public interface EndpointDirectory {
    Optional<Target> find(String endpoint);

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
     * Cloud models by id, then running deployments by id, in every project: a router's references were checked
     * against its project when it was saved, and a request naming a deployment itself was looked up in the caller's
     * projects before it got here.
     */
    static EndpointDirectory of(
            Function<String, Optional<RemoteEndpoint>> cloudModels, DeploymentDirectory deployments) {
        requireNonNull(cloudModels, "cloudModels");
        requireNonNull(deployments, "deployments");
        return endpoint -> cloudModels
                .apply(endpoint)
                .<Target>map(Target.CloudModel::new)
                .or(() -> deployments.find(project -> true, endpoint).stream()
                        .filter(deployment -> deployment.id().equals(endpoint))
                        .findFirst()
                        .map(Target.Deployment::new));
    }
}
