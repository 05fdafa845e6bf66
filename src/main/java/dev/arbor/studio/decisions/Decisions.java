package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.ModelRuntime;
import dev.arbor.models.Models;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.templates.Templates;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The studio's decisions: the pipeline every entry point shares, and the routes that make, read and rerun
 * decisions (the studio's API and the single-request format). What was decided is kept in history.
 */
public final class Decisions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);

    private final HistoryStore store;
    private final DecisionService service;
    private final Templates templates;
    private final Clock clock;
    private final StudioSettings settings;
    private final FeedbackStore feedback;
    private final Models models;
    private final ModelRuntime runtime;
    private final boolean readOnly;

    /**
     * Opens decisions; {@link #start} recovers what a previous run left unfinished.
     *
     * @param hmacKey the key of the HMACs that stand in for sensitive values in history
     * @param meters where decisions are counted and timed ({@code arbor_decisions_seconds})
     */
    public Decisions(
            Database database,
            Clock clock,
            Templates templates,
            Models models,
            ModelRuntime runtime,
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
        this.service = new DecisionService(
                store,
                new Planner(templates, models, runtime, hmacKey, settings, files),
                runtime,
                files,
                clock,
                new DecisionMetrics(meters));
        this.readOnly = database.readOnly();
    }

    /** Marks failed the decisions a previous run left queued or running: they are never run twice. */
    public void start() {
        if (readOnly) {
            return;
        }
        ObjectNode interrupted = Json.object();
        interrupted.put("type", ErrorCode.INTERNAL_ERROR.type());
        interrupted.put("code", ErrorCode.INTERNAL_ERROR.code());
        interrupted.put(
                "message",
                "The server stopped while this decision was queued or running; it was not run "
                        + "again. Rerun it (POST /v1/studio/decisions/{id}/rerun) if it is still needed.");
        int recovered = store.failUnfinished(interrupted, clock.millis());
        if (recovered > 0) {
            LOG.warn("{} decisions were queued or running when the server stopped; they are marked failed", recovered);
        }
    }

    /** The routes that check what models can answer, make and read decisions, and take the single-request format. */
    public void addRoutes(Routes routes) {
        new CompatibilityRoutes(models, runtime).addTo(routes);
        new DecisionRoutes(service, store, new Rerun(), templates, feedback, settings, clock).addTo(routes);
        new WireRoutes(service, templates).addTo(routes);
    }

    @Override
    public void close() {
        service.close();
    }
}
