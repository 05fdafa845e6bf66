package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.inference.endpoints.AttemptPolicy;
import dev.arbor.inference.openai.StreamEdit;
import java.util.Optional;

/**
 * What a router asks of forwarding beyond the endpoint: a key sent in place of each endpoint's own (a stored
 * credential's value), an edit of a streamed answer as it passes, and how each attempt is timed, retried, hedged and
 * held back.
 */
public record Forwarding(Optional<String> apiKey, Optional<StreamEdit> streamEdit, AttemptPolicy policy) {
    /** The endpoint's own key, the stream as it comes, the server's timeouts. */
    public static final Forwarding PLAIN = new Forwarding(Optional.empty(), Optional.empty(), AttemptPolicy.DEFAULT);

    public Forwarding {
        requireNonNull(apiKey, "apiKey");
        requireNonNull(streamEdit, "streamEdit");
        requireNonNull(policy, "policy");
    }

    @Override
    public String toString() {
        return "Forwarding[apiKey " + (apiKey.isPresent() ? "given" : "the endpoint's") + ", streamEdit "
                + streamEdit.isPresent() + ", " + policy + "]"; // never the key
    }
}
