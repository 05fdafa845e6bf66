package dev.arbor.inference;

import dev.arbor.models.RemoteEndpoint;
import java.util.Optional;

/**
 * Where routing finds what an endpoint reference names: a cloud model of the registry now (deployments once they
 * exist). Empty for a reference that names nothing callable.
 */
@FunctionalInterface
public interface EndpointDirectory {
    Optional<RemoteEndpoint> find(String endpoint);
}
