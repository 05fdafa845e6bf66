package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.instances.StoppedServerWork;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.heads.Heads;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.running.DecisionService;
import dev.arbor.studio.running.DeployedModels;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.templates.Templates;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;

/**
 * The studio's decisions: the pipeline every entry point shares ({@link DecisionService}, which runs a plan), and
 * the routes that make, read and rerun decisions (the studio's API and the single-request format). What was decided
 * is kept in history.
 */
public final class Decisions implements AutoCloseable {
    private final HistoryStore store;
    private final DecisionService service;
    private final Templates templates;
    private final Clock clock;
    private final StudioSettings settings;
    private final FeedbackStore feedback;
    private final Models models;
    private final ModelRuntime runtime;
    private final ServerInstances instances;
    private final boolean readOnly;
    private final StoppedServerWork stopped;

    /**
     * Opens decisions; {@link #start} recovers what stopped servers left unfinished.
     *
     * @param instances this server, which owns the background decisions it queues, and the others on the database
     * @param heads the fitted heads that template versions may name, which answer in place of zero-shot
     * @param hmacKey the key of the HMACs that stand in for sensitive values in history
     * @param meters where decisions are counted and timed ({@code arbor_decisions_seconds})
     */
    public Decisions(
            Database database,
            Clock clock,
            Templates templates,
            Models models,
            ModelRuntime runtime,
            Heads heads,
            ServerInstances instances,
            StudioFiles files,
            HistoryStore store,
            StudioSettings settings,
            FeedbackStore feedback,
            byte[] hmacKey,
            MeterRegistry meters) {
        this.store = requireNonNull(store, "store");
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
        this.settings = requireNonNull(settings, "settings");
        this.feedback = requireNonNull(feedback, "feedback");
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
        this.instances = requireNonNull(instances, "instances");
        this.service = new DecisionService(
                store,
                instances.id(),
                new Planner(templates, models, runtime, hmacKey, settings, files),
                runtime,
                heads,
                files,
                clock,
                meters);
        this.readOnly = database.readOnly();
        this.stopped = new StoppedServerWork(instances, "decisions", this::failUnfinished);
    }

    /**
     * Marks failed the decisions that stopped servers left queued or running: they are never run twice. While
     * replicas share the database, it looks again at every heartbeat, so that a server that dies leaves nothing
     * queued for ever; a server that runs keeps its own.
     */
    public void start() {
        if (!readOnly) {
            stopped.start();
        }
    }

    private int failUnfinished() {
        long now = clock.millis();
        int recovered = 0;
        for (var server : instances.forgetStopped()) {
            recovered += store.failUnfinishedOf(server.id(), interrupted(server.why()), now);
        }
        return recovered + store.failUnfinishedOfUnregistered(interrupted("its server stopped"), now);
    }

    private static Decided.Failure interrupted(String why) {
        return Decided.Failure.of(
                ErrorCode.INTERNAL_ERROR,
                "The server stopped while this decision was queued or running (" + why + "); it was not run "
                        + "again. Rerun it (POST /v1/studio/decisions/{id}/rerun) if it is still needed.");
    }

    /**
     * Runs one decision for another part of the server (never in the background) and records it in history as any
     * decision, its source saying who asked.
     */
    public Decided decide(DecisionRequest request, Source source) {
        Plan plan = service.plan(requireNonNull(request, "request").inForeground(), Planner.Purpose.RUN);
        return service.decide(plan, requireNonNull(source, "source"), System.nanoTime())
                .decision();
    }

    /**
     * Checks a decision as a preview does, up to the model and without running it: throws the error a run of it
     * would give before reaching the model (an unknown or incompatible model, a bad input).
     */
    public void check(DecisionRequest request) {
        service.plan(requireNonNull(request, "request"), Planner.Purpose.PREVIEW);
    }

    /** What a decision reads and which model answers it: the state as text, and the model when one would. */
    public record Situation(String text, Optional<String> model) {
        public Situation {
            requireNonNull(text, "text");
            requireNonNull(model, "model");
        }
    }

    /** Works out a decision as a preview does (template rendered, model chosen) without running it. */
    public Situation situation(DecisionRequest request) {
        Plan plan = service.plan(requireNonNull(request, "request"), Planner.Purpose.PREVIEW);
        return new Situation(plan.situation(), plan.model());
    }

    /**
     * The routes that check what models can answer, make and read decisions, and take the single-request format
     * (whose {@code model} may name a deployment).
     */
    public void addRoutes(Routes routes, DeployedModels deployed) {
        new CompatibilityRoutes(models, runtime).addTo(routes);
        new DecisionRoutes(service, store, new Rerun(), templates, feedback, settings, clock).addTo(routes);
        new WireRoutes(service, templates, deployed).addTo(routes);
    }

    @Override
    public void close() {
        stopped.close();
        service.close();
    }
}
