package dev.arbor.studio.running;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.planning.Plan;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@code arbor_decisions_seconds}: every decision that reached its run (not those refused as invalid), by model,
 * template ({@code adhoc} without one, a built-in template's id, {@code project} for a project's own: its id would
 * show every project's templates to whoever scrapes, one series each), outcome ({@code completed}, {@code failed},
 * {@code cancelled}) and error code ({@code none} unless failed), with the time from arrival (or from the queue, in
 * the background) to its end.
 */
final class DecisionMetrics {
    private static final String ADHOC = "adhoc";
    private static final String PROJECT_TEMPLATE = "project";
    private static final String BUILT_IN = "builtin/";
    private static final String NO_ERROR = "none";

    private final Meter.MeterProvider<Timer> decisions;

    DecisionMetrics(MeterRegistry registry) {
        this.decisions = Timer.builder("arbor.decisions")
                .description("Decisions by model, template and outcome, with their time")
                .serviceLevelObjectives(
                        Duration.ofMillis(10),
                        Duration.ofMillis(50),
                        Duration.ofMillis(100),
                        Duration.ofMillis(250),
                        Duration.ofMillis(500),
                        Duration.ofSeconds(1),
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(30))
                .withRegistry(registry);
    }

    void completed(Plan plan, long sinceNanos) {
        record(plan, DecisionStatus.COMPLETED, NO_ERROR, sinceNanos);
    }

    void failed(Plan plan, ErrorCode code, long sinceNanos) {
        record(plan, DecisionStatus.FAILED, code.code(), sinceNanos);
    }

    void cancelled(Plan plan, long sinceNanos) {
        record(plan, DecisionStatus.CANCELLED, NO_ERROR, sinceNanos);
    }

    private void record(Plan plan, DecisionStatus outcome, String error, long sinceNanos) {
        decisions
                .withTags(
                        "model",
                        plan.model().orElse("none"),
                        "template",
                        plan.template()
                                .map(t -> t.id().startsWith(BUILT_IN) ? t.id() : PROJECT_TEMPLATE)
                                .orElse(ADHOC),
                        "outcome",
                        outcome.wire(),
                        "error",
                        error)
                .record(System.nanoTime() - sinceNanos, TimeUnit.NANOSECONDS);
    }
}
