package dev.arbor.pipelines.runs.store;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.pipelines.runs.store.RunEvent.Logged;
import dev.arbor.pipelines.runs.store.RunEvent.RunMoved;
import dev.arbor.pipelines.runs.store.RunEvent.StepMoved;
import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.pipelines.runs.store.RunStore.StepStatus;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A {@link RunEvent} as the events table's columns and as the API's JSON, and back from the columns: the one place
 * that knows an event's kinds ({@code run}, {@code step}, {@code log}) and which columns each fills.
 */
public final class RunEventCodec {
    private RunEventCodec() {}

    /** The columns of {@code pipeline_run_events} an event fills, as they are stored and shown. */
    record Columns(
            String kind,
            @Nullable String stepId,
            @Nullable String status,
            @Nullable String level,
            String message) {}

    static Columns columns(RunEvent event) {
        return switch (event) {
            case RunMoved moved -> new Columns("run", null, moved.status().json(), null, moved.message());
            case StepMoved moved ->
                new Columns("step", moved.stepId(), moved.status().json(), null, moved.message());
            case Logged logged -> new Columns("log", logged.stepId(), null, logged.level(), logged.message());
        };
    }

    /** An event read back from its columns. */
    static RunEvent read(Columns columns) {
        return switch (columns.kind()) {
            case "run" ->
                new RunMoved(RunStatus.valueOf(upper(required(columns.status(), "status"))), columns.message());
            case "step" ->
                new StepMoved(
                        required(columns.stepId(), "step_id"),
                        StepStatus.valueOf(upper(required(columns.status(), "status"))),
                        columns.message());
            case "log" ->
                new Logged(
                        required(columns.stepId(), "step_id"), required(columns.level(), "level"), columns.message());
            default -> throw new IllegalStateException("an event of unknown kind '" + columns.kind() + "'");
        };
    }

    /** An event as the API shows it, in its pages and streams. */
    public record Reply(
            long id,
            String object,
            @JsonProperty("run_id") String runId,
            String kind,
            @JsonProperty("step_id") @Nullable String stepId,
            @Nullable String status,
            @Nullable String level,
            String message,
            @JsonProperty("created_at") long createdAt) {}

    public static Reply reply(RunEvent.Stored stored) {
        Columns columns = columns(stored.event());
        return new Reply(
                stored.id(),
                "pipeline.run.event",
                stored.runId(),
                columns.kind(),
                columns.stepId(),
                columns.status(),
                columns.level(),
                columns.message(),
                stored.at() / 1000);
    }

    private static String required(@Nullable String value, String column) {
        if (value == null) {
            throw new IllegalStateException("an event without its " + column);
        }
        return value;
    }

    private static String upper(String status) {
        return status.toUpperCase(Locale.ROOT);
    }
}
