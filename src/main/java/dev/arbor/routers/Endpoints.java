package dev.arbor.routers;

import java.util.function.Predicate;

/**
 * Which references name something an {@code endpoint_ref} may name besides a cloud model of the registry: a running
 * deployment, by id (both are ids, so a saved reference keeps its meaning), in a project {@code inProject} accepts.
 * The deployments feature answers.
 */
@FunctionalInterface
public interface Endpoints {
    boolean exists(Predicate<String> inProject, String ref);
}
