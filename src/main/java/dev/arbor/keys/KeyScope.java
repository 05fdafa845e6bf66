package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;
import java.util.List;

/**
 * What the inference key that authenticated a request may call: only its project's routers, deployments and cloud
 * models, and of those only the ones it lists (a key that lists neither routers nor models may call all of them).
 */
public record KeyScope(String keyId, String projectId, List<String> routers, List<String> models, KeyLimits limits) {
    public KeyScope {
        requireNonNull(keyId, "keyId");
        requireNonNull(projectId, "projectId");
        routers = List.copyOf(routers);
        models = List.copyOf(models);
        requireNonNull(limits, "limits");
    }

    private boolean unlisted() {
        return routers.isEmpty() && models.isEmpty();
    }

    /** Whether it may call the router known by these names (its id and its name). */
    public boolean mayCallRouter(String... names) {
        return unlisted() || Arrays.stream(names).anyMatch(routers::contains);
    }

    /** Whether it may call the deployment or cloud model known by these names (its id and its name). */
    public boolean mayCallModel(String... names) {
        return unlisted() || Arrays.stream(names).anyMatch(models::contains);
    }
}
