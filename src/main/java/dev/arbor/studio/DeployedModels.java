package dev.arbor.studio;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.Scoring;
import io.javalin.http.Context;
import java.util.Optional;
import java.util.function.Function;

/**
 * Deployments that decide: {@code POST /v1/decide} asks here whether its {@code model} names a running deployment,
 * which then answers the decision from its replicas. The deployments' serving answers; {@link #NONE} knows none.
 */
@FunctionalInterface
public interface DeployedModels {
    DeployedModels NONE = (ctx, model) -> Optional.empty();

    /**
     * The running deployment {@code model} names, admitted: its rate limit taken (its headers written on {@code ctx};
     * a refusal throws 429), its model able to decide (400 {@code model_capability_unsupported} otherwise).
     */
    Optional<Deployed> admit(Context ctx, String model);

    /** A deployment's registry model (what the decision is planned for) and its replicas' scoring. */
    record Deployed(String modelId, Function<Scoring.Request, Scoring.Answer> scorer) {
        public Deployed {
            requireNonNull(modelId, "modelId");
            requireNonNull(scorer, "scorer");
        }
    }
}
