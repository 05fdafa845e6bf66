package dev.arbor.pipelines.runs;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.pipelines.runs.store.RunStore.Firing;
import dev.arbor.platform.errors.Problem;
import java.util.List;
import java.util.Optional;

/**
 * What schedules ask of pipelines: to check a schedule's params against its pipeline's parameters, and to start its
 * runs, as it fires or when asked to run now. The {@code Pipelines} facade, which sits above, answers it.
 */
public interface ScheduledRuns {
    /** Whether there is such a pipeline. */
    boolean hasPipeline(String pipelineId);

    /**
     * Checks params for runs of a pipeline, as a run's own params are checked: problems at {@code params.<name>}.
     * Empty when there is no such pipeline.
     */
    Optional<List<Problem>> eventRunProblems(String pipelineId, JsonNode params);

    /**
     * Starts a run of a pipeline with params checked as a run's own, at the pipeline's time limit; {@code trigger}
     * is what the run says started it ({@code trigger.event} is what {@code {{ event.x }}} reads in its steps). A
     * {@code firing} starts one run, however often it is asked.
     */
    Start startScheduled(String pipelineId, JsonNode params, ObjectNode trigger, Optional<Firing> firing);

    /** What asking for a scheduled run came to. */
    sealed interface Start {
        record Started(String runId) implements Start {
            public Started {
                requireNonNull(runId, "runId");
            }
        }

        /** No run: this firing has started one already. */
        record AlreadyStarted() implements Start {}

        /** No run: the params no longer fit the pipeline; the problems are at {@code params.<name>}. */
        record Refused(List<Problem> problems) implements Start {
            public Refused {
                problems = List.copyOf(problems);
            }
        }

        /** No run: there is no such pipeline (any more). */
        record NoPipeline() implements Start {}

        /** No run: the pipeline is paused, and its firings are skipped until it is resumed. */
        record Paused() implements Start {}
    }
}
