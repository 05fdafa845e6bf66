package dev.arbor.pipelines.control;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.store.RunStore.Run;
import dev.arbor.pipelines.runs.store.RunStore.StepRun;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * A run as the API shows it. A run read with its definition has its {@code progress} and {@code steps} (each with
 * its name and action); a run in a list has neither (the fields are left out).
 */
record RunReply(
        String id,
        String object,
        @JsonProperty("pipeline_id") String pipelineId,
        @JsonProperty("pipeline_version") int pipelineVersion,
        String status,
        JsonNode params,
        JsonNode trigger,
        @Nullable JsonNode outputs,
        @Nullable JsonNode error,
        @JsonProperty("timeout_seconds") int timeoutSeconds,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("started_at") @Nullable Long startedAt,
        @JsonProperty("finished_at") @Nullable Long finishedAt,
        @JsonProperty("deadline_at") long deadlineAt,
        @JsonProperty("paused_at") @Nullable Long pausedAt,
        @JsonProperty("replay_of") @Nullable String replayOf,
        int priority,
        @JsonProperty("trace_id") @Nullable String traceId,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Progress progress,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<StepReply> steps) {

    record Progress(
            @JsonProperty("finished_steps") long finishedSteps,
            @JsonProperty("total_steps") int totalSteps) {}

    record StepReply(
            String id,
            String name,
            String action,
            String status,
            int attempts,
            @Nullable JsonNode outputs,
            @Nullable JsonNode error,
            @JsonProperty("started_at") @Nullable Long startedAt,
            @JsonProperty("finished_at") @Nullable Long finishedAt,
            @JsonProperty("duration_ms") @Nullable Long durationMs,
            @JsonProperty("next_attempt_at") @Nullable Long nextAttemptAt) {

        static StepReply of(StepRun step, PipelineDefinition.Step definition) {
            return new StepReply(
                    step.id(),
                    definition.name(),
                    definition.action(),
                    step.status().json(),
                    step.attempts(),
                    step.outputs().orElse(null),
                    step.error().orElse(null),
                    seconds(step.startedAt()),
                    seconds(step.finishedAt()),
                    step.startedAt().isPresent() && step.finishedAt().isPresent()
                            ? step.finishedAt().getAsLong() - step.startedAt().getAsLong()
                            : null,
                    seconds(step.dueAt()));
        }
    }

    /** A run in a list: without its steps. */
    static RunReply listed(Run run) {
        return of(run, Optional.empty());
    }

    /** A run read on its own: with each step, named as its definition names it. */
    static RunReply of(Run run, PipelineDefinition definition) {
        return of(run, Optional.of(definition));
    }

    private static RunReply of(Run run, Optional<PipelineDefinition> definition) {
        return new RunReply(
                run.id(),
                "pipeline.run",
                run.pipelineId(),
                run.pipelineVersion(),
                run.status().json(),
                run.params(),
                run.trigger(),
                run.outputs().orElse(null),
                run.error().orElse(null),
                run.timeoutSeconds(),
                run.createdAt() / 1000,
                seconds(run.startedAt()),
                seconds(run.finishedAt()),
                run.deadlineAt() / 1000,
                seconds(run.pausedAt()),
                run.replayOf().orElse(null),
                run.priority(),
                run.traceParent().map(RunReply::traceId).orElse(null),
                definition
                        .map(d -> new Progress(
                                run.steps().stream()
                                        .filter(s -> s.status().finished())
                                        .count(),
                                run.steps().size()))
                        .orElse(null),
                definition
                        .map(d -> run.steps().stream()
                                .map(step -> StepReply.of(step, d.step(step.id())))
                                .toList())
                        .orElse(null));
    }

    /** The trace id of a W3C {@code traceparent} ({@code 00-<trace id>-<span id>-<flags>}). */
    private static String traceId(String traceparent) {
        return traceparent.split("-", -1)[1];
    }

    private static @Nullable Long seconds(OptionalLong millis) {
        return millis.isPresent() ? millis.getAsLong() / 1000 : null;
    }
}
