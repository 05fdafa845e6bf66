package dev.arbor.routers;

import java.util.List;
import java.util.function.Predicate;

/** The active routers that inference requests may name, for the routing runtime. */
public interface ActiveRouters {
    /**
     * The active routers a request's {@code model} names among the projects {@code inProject} accepts: the one with
     * that id, else those with that name (more than one only when projects share a name). Empty when none is active
     * there.
     */
    List<RouterSnapshot> find(Predicate<String> inProject, String nameOrId);
}
