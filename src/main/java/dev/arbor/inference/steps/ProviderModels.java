package dev.arbor.inference.steps;

import java.util.Optional;

/** Where a provider_models step finds the cloud model a request asks its provider for. */
@FunctionalInterface
public interface ProviderModels {
    /**
     * The registry id of the cloud model of {@code provider} (a provider's name, or the API URL its models were added
     * from) that {@code asked} names, by registry id or else by the provider's own name for it; empty when none does.
     */
    Optional<String> find(String provider, String asked);
}
