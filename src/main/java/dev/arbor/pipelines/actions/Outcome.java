package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Set;

/** How one attempt of a step ended. */
public sealed interface Outcome {
    /** The step is done with these outputs; {@code skipped} names steps it turns away from (a branch not taken). */
    record Done(ObjectNode outputs, Set<String> skipped) implements Outcome {
        public Done {
            requireNonNull(outputs, "outputs");
            skipped = Set.copyOf(skipped);
        }

        public Done(ObjectNode outputs) {
            this(outputs, Set.of());
        }
    }

    /** The step waits, holding no thread, and is asked again at {@code dueAt}; it gives up at {@code deadlineAt}. */
    record Waiting(long dueAt, long deadlineAt) implements Outcome {}

    /**
     * The attempt failed. {@code retryable} says whether another attempt could do better: a refused URL or a failed
     * template will not.
     */
    record Failed(String code, String message, boolean retryable) implements Outcome {
        public Failed {
            requireNonNull(code, "code");
            requireNonNull(message, "message");
        }
    }
}
