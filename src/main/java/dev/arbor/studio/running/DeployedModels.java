package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.http.HeaderParam;
import io.javalin.http.Context;
import java.util.List;

/**
 * Deployments that decide: {@code POST /v1/decide} asks here whether its {@code model} names a running deployment,
 * which then answers the decision from its replicas, on this server or on the one that runs them. The deployments'
 * serving answers; {@link #NONE} knows none.
 */
@FunctionalInterface
public interface DeployedModels {
    DeployedModels NONE = (ctx, model) -> new NoDeployment();

    /**
     * What {@code model} is to a decision: no deployment, or a running deployment admitted (its rate limit taken, its
     * headers written on {@code ctx}; a refusal throws 429), whose model decides here (400
     * {@code model_capability_unsupported} when it cannot) or whose server answered the request already.
     */
    Admission admit(Context ctx, String model);

    /** The request headers {@link #admit} reads (the current project's), declared on the route that calls it. */
    default List<HeaderParam> headers() {
        return List.of();
    }

    /** What a decision's {@code model} is. */
    sealed interface Admission permits NoDeployment, Deployed, AnsweredElsewhere {}

    /** No deployment of that name: the registry's model of that id decides. */
    record NoDeployment() implements Admission {}

    /** A deployment's registry model (what the decision is planned for) and its replicas on this server. */
    record Deployed(String modelId, DeployedReplicas replicas) implements Admission {
        public Deployed {
            requireNonNull(modelId, "modelId");
            requireNonNull(replicas, "replicas");
        }
    }

    /** The server that runs the deployment's replicas answered the request: its answer is on the context. */
    record AnsweredElsewhere() implements Admission {}
}
