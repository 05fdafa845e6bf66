package dev.arbor.pipelines.runs.store;

import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.pipelines.runs.store.RunStore.StepStatus;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;

/**
 * Runs and steps as they end, by status ({@code arbor_pipeline_runs_finished_total},
 * {@code arbor_pipeline_steps_finished_total}), and the steps executing on this server now
 * ({@code arbor_pipeline_steps_executing}).
 */
public final class RunMetrics {
    private final MeterRegistry registry;
    private final Meter.MeterProvider<Counter> runs;
    private final Meter.MeterProvider<Counter> steps;

    public RunMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.runs = Counter.builder("arbor.pipeline.runs.finished")
                .description("Pipeline runs that ended, by status")
                .withRegistry(registry);
        this.steps = Counter.builder("arbor.pipeline.steps.finished")
                .description("Pipeline steps that ended, by status")
                .withRegistry(registry);
    }

    void runEnded(RunStatus status) {
        runs.withTag("status", status.json()).increment();
    }

    void stepEnded(StepStatus status) {
        steps.withTag("status", status.json()).increment();
    }

    /** Shows how many steps execute here now: {@code inFlight} holds each run's steps executing on this server. */
    public void watchExecuting(Map<String, ? extends Collection<?>> inFlight) {
        Gauge.builder(
                        "arbor.pipeline.steps.executing",
                        inFlight,
                        running -> running.values().stream()
                                .mapToInt(Collection::size)
                                .sum())
                .description("Pipeline steps executing on this server now")
                .register(registry);
    }
}
