package dev.arbor.routers;

/**
 * What an {@code endpoint_ref} may name: a cloud model of the registry by its id today; a deployment's id too once
 * deployments exist (both are ids, so a saved reference keeps its meaning).
 */
interface Endpoints {
    boolean exists(String ref);
}
