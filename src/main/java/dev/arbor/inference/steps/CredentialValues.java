package dev.arbor.inference.steps;

import java.util.Optional;

/** Where a provider_models step reads the stored credential whose value it sends as the key. */
@FunctionalInterface
public interface CredentialValues {
    /** The value of the credential with this id or name, opened; empty when there is none. */
    Optional<String> open(String reference);
}
