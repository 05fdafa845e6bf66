package dev.arbor.pipelines.runs;

import dev.arbor.pipelines.actions.Outcome;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.store.RunStore.Run;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.platform.tracing.Tracing;
import io.opentelemetry.api.trace.SpanKind;

/**
 * A run's spans. A run is a trace of its own, begun by the span of its start (linked to what started it: a request, a
 * webhook delivery, a parent run's step), whose {@code traceparent} the run keeps in the database; each step attempt
 * is a span under it, wherever and whenever it runs. Attributes name the run, the step and the action, never its
 * params or outputs.
 */
final class RunSpans {
    private RunSpans() {}

    /**
     * The span of a run's start, current while the run is stored and its first steps scheduled; the run's id is
     * added once it has one.
     */
    static Traced started(Tracing tracing, String pipelineId) {
        return Traced.root(tracing, "pipeline run " + pipelineId, SpanKind.INTERNAL)
                .with("arbor.pipeline.id", pipelineId);
    }

    /** The span of one attempt of {@code step}, in its run's trace (a no-op for a run begun while tracing was off). */
    static Traced attempt(Tracing tracing, Run run, PipelineDefinition.Step step, int attempt) {
        return Traced.continued(tracing, run.traceParent().orElse(""), "pipeline step " + step.id(), SpanKind.INTERNAL)
                .with("arbor.pipeline.id", run.pipelineId())
                .with("arbor.run.id", run.id())
                .with("arbor.pipeline.step", step.id())
                .with("arbor.pipeline.action", step.action())
                .with("arbor.pipeline.attempt", attempt);
    }

    /** What the attempt came to: done, waiting (parked until it is asked again), or failed with its code. */
    static void ended(Traced span, Outcome outcome) {
        switch (outcome) {
            case Outcome.Done _ -> span.with("arbor.pipeline.outcome", "done");
            case Outcome.Waiting _ -> span.with("arbor.pipeline.outcome", "waiting");
            case Outcome.Failed failed -> {
                span.with("arbor.pipeline.outcome", "failed");
                span.failed(failed.code(), failed.message());
            }
        }
    }
}
