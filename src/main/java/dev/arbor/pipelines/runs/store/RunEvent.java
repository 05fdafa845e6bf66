package dev.arbor.pipelines.runs.store;

import static java.util.Objects.requireNonNull;

import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.pipelines.runs.store.RunStore.StepStatus;

/**
 * One line of a run's history, by kind: the run moved to a status, a step did, or a step logged a line. Written to
 * the events table and to the API by {@link RunEventCodec}, the one place that knows their columns and fields.
 */
public sealed interface RunEvent {
    String message();

    /** The run moved to {@code status} (or, for {@code running}, started or went on again). */
    record RunMoved(RunStatus status, String message) implements RunEvent {
        public RunMoved {
            requireNonNull(status, "status");
            requireNonNull(message, "message");
        }
    }

    /** A step moved to {@code status}. */
    record StepMoved(String stepId, StepStatus status, String message) implements RunEvent {
        public StepMoved {
            requireNonNull(stepId, "stepId");
            requireNonNull(status, "status");
            requireNonNull(message, "message");
        }
    }

    /** A line a step logged, at a level its action chose ({@code info}, {@code warning}, ...). */
    record Logged(String stepId, String level, String message) implements RunEvent {
        public Logged {
            requireNonNull(stepId, "stepId");
            requireNonNull(level, "level");
            requireNonNull(message, "message");
        }
    }

    /** An event as stored: its id (the order of a run's events, and a stream's cursor) and when it happened. */
    record Stored(long id, String runId, long at, RunEvent event) {
        public Stored {
            requireNonNull(runId, "runId");
            requireNonNull(event, "event");
        }
    }
}
