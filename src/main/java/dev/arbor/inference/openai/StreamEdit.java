package dev.arbor.inference.openai;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * Changes a streamed answer as it passes (a router's output content rules): each chunk the endpoint sends comes
 * through here before it goes on, and the stream's end may add what was held back. A chunk's text may be held back,
 * changed or passed on; a chunk itself is never dropped, so the caller gets the endpoint's chunks one for one.
 */
public interface StreamEdit {
    /**
     * The chunk to send in place of {@code chunk}: the same object when nothing in it changed (it then goes on as the
     * endpoint sent it, byte for byte), else a changed copy. Throws {@link dev.arbor.platform.errors.ApiException} to end
     * the stream with that error as its last event.
     */
    ObjectNode chunk(ObjectNode chunk);

    /** What the stream ends with, before {@code [DONE]}, after its last chunk {@code last}. */
    Ending finish(ObjectNode last);

    /**
     * The edit of one attempt's stream (each endpoint tried, a hedge's two included, gets its own relay): this same
     * edit unless it keeps something per stream.
     */
    default StreamEdit forAttempt() {
        return this;
    }

    /** The endpoint's stream reached {@code [DONE]}, after {@link #finish}: what came is the whole answer. */
    default void done() {}

    /**
     * The end of an edited stream: a chunk with the text still held back (modelled on the last chunk), and comment
     * lines ({@code : name: value}, which clients of server-sent events skip) saying what headers sent earlier could
     * not.
     */
    record Ending(Optional<ObjectNode> heldBack, List<String> comments) {
        public static final Ending NOTHING = new Ending(Optional.empty(), List.of());

        public Ending {
            requireNonNull(heldBack, "heldBack");
            comments = List.copyOf(comments);
        }
    }
}
