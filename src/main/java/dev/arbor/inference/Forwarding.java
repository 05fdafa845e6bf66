package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import dev.arbor.inference.openai.StreamEdit;
import java.util.Optional;

/**
 * What a router asks of forwarding beyond the endpoint: a key sent in place of each endpoint's own (a stored
 * credential's value), and an edit of a streamed answer as it passes.
 */
public record Forwarding(Optional<String> apiKey, Optional<StreamEdit> streamEdit) {
    /** The endpoint's own key, the stream as it comes. */
    public static final Forwarding PLAIN = new Forwarding(Optional.empty(), Optional.empty());

    public Forwarding {
        requireNonNull(apiKey, "apiKey");
        requireNonNull(streamEdit, "streamEdit");
    }

    @Override
    public String toString() {
        return "Forwarding[apiKey " + (apiKey.isPresent() ? "given" : "the endpoint's") + ", streamEdit "
                + streamEdit.isPresent() + "]"; // never the key
    }
}
