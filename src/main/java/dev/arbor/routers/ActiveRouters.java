package dev.arbor.routers;

import java.util.Optional;
import java.util.Set;

/** The active routers that inference requests may name, for the routing runtime. */
public interface ActiveRouters {
    /**
     * The active router a request's {@code model} names: by id in any of {@code projectIds}, else by name within
     * them. Empty when none is active there.
     */
    Optional<RouterSnapshot> find(Set<String> projectIds, String nameOrId);
}
