package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.ReplicaSet;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.studio.DeployedModels;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/**
 * The running deployments {@code POST /v1/decide} may name, by name or id. The studio's callers hold the studio's key,
 * which belongs to no project, so every project's deployments are looked at (a name in several is 404
 * {@code model_not_found}: name the deployment by its id). A deployment decides from replicas on this machine whose
 * model scores; its rate limit is the one its inference requests spend.
 */
public final class DeploymentDecisions implements DeployedModels {
    private final DeploymentDirectory deployments;
    private final DeploymentLimits limits;

    public DeploymentDecisions(DeploymentDirectory deployments, RateLimiter limits) {
        this.deployments = requireNonNull(deployments, "deployments");
        this.limits = new DeploymentLimits(limits);
    }

    @Override
    public Optional<Deployed> admit(Context ctx, String model) {
        requireNonNull(ctx, "ctx");
        requireNonNull(model, "model");
        List<DeploymentDirectory.ServedDeployment> found = deployments.find(project -> true, model);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        if (found.size() > 1) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_FOUND,
                    "model",
                    "Deployments named '" + model + "' run in " + found.size() + " projects: name one by its id.");
        }
        DeploymentDirectory.ServedDeployment deployment = found.getFirst();
        if (!(deployment.backend() instanceof DeploymentDirectory.Backend.Replicas(ReplicaSet replicas))
                || !replicas.capabilities().contains(ReplicaSet.Capability.SCORE)) {
            throw ApiException.of(
                    ErrorCode.MODEL_CAPABILITY_UNSUPPORTED,
                    "model",
                    "Deployment '" + deployment.name() + "' cannot decide: decisions come from replicas on this "
                            + "server (cluster local) of a model that scores; a Kubernetes deployment serves chat "
                            + "completions and embeddings.");
        }
        limits.take(ctx, deployment).ifPresent(refusal -> {
            throw refusal;
        });
        return Optional.of(new Deployed(replicas.modelId(), replicas::score));
    }
}
