package dev.arbor.routers;

/**
 * Which references name something an {@code endpoint_ref} may name besides a cloud model of the registry: a running
 * deployment, by id (both are ids, so a saved reference keeps its meaning). The deployments feature answers.
 */
@FunctionalInterface
public interface Endpoints {
    boolean exists(String ref);
}
