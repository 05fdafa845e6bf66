package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.ModelRuntime;
import dev.arbor.models.Models;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.examples.ExampleRoutes;
import dev.arbor.studio.examples.ExampleStore;
import dev.arbor.studio.feedback.FeedbackRoutes;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.FileUsers;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.HistoryEditRoutes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.Retention;
import dev.arbor.studio.settings.SettingsRoutes;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.stats.CompareRoutes;
import dev.arbor.studio.stats.StatsRoutes;
import dev.arbor.studio.templates.TemplateHistory;
import dev.arbor.studio.templates.Templates;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.HashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The studio's decisions: the pipeline every entry point shares, history of what was decided, and its routes. */
public final class Decisions implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Decisions.class);

    private final HistoryStore store;
    private final DecisionService service;
    private final Templates templates;
    private final Clock clock;
    private final Database database;
    private final byte[] hmacKey;
    private final StudioSettings settings;
    private final StudioFiles files;
    private final Retention retention;
    private final Models models;
    private final ModelRuntime runtime;

    /**
     * Opens decisions; those a previous run left queued or running are marked failed (never run twice).
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
            byte[] hmacKey,
            MeterRegistry meters) {
        this.store = new HistoryStore(database, files::available);
        this.templates = requireNonNull(templates, "templates");
        this.clock = requireNonNull(clock, "clock");
        this.database = requireNonNull(database, "database");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
        this.settings = new StudioSettings(database, clock);
        this.files = requireNonNull(files, "files");
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
        this.retention = new Retention(store, () -> settings.current().retention(), templates, files, clock);
        this.service = new DecisionService(
                store,
                new Planner(templates, models, runtime, hmacKey, settings, files),
                runtime,
                files,
                clock,
                new DecisionMetrics(meters));
        ObjectNode interrupted = Json.object();
        interrupted.put("type", ErrorCode.INTERNAL_ERROR.type());
        interrupted.put("code", ErrorCode.INTERNAL_ERROR.code());
        interrupted.put(
                "message",
                "The server stopped while this decision was queued or running; it was not run "
                        + "again. Rerun it (POST /v1/studio/decisions/{id}/rerun) if it is still needed.");
        int recovered = database.readOnly() ? 0 : store.failUnfinished(interrupted, clock.millis());
        if (recovered > 0) {
            LOG.warn("{} decisions were queued or running when the server stopped; they are marked failed", recovered);
        }
    }

    /** The decisions that name each template, for templates to consult before they delete one. */
    public static TemplateHistory history(Database database) {
        var store = new HistoryStore(database, file -> false);
        return new TemplateHistory() {
            @Override
            public long decisions(String templateId) {
                return store.countByTemplate(templateId);
            }

            @Override
            public long deleteDecisions(String templateId) {
                return store.deleteByTemplate(templateId);
            }
        };
    }

    /** The files that stored decisions and examples keep, for files to consult before they remove one. */
    public static FileUsers fileUsers(Database database) {
        var decisions = new HistoryStore(database, file -> false);
        var examples = new ExampleStore(database);
        return fileIds -> {
            var used = new HashSet<>(decisions.filesInUse(fileIds));
            used.addAll(examples.filesInUse(fileIds));
            return used;
        };
    }

    public void addRoutes(Routes routes) {
        var feedback = new FeedbackStore(database);
        new StatsRoutes(store, feedback, templates, clock).addTo(routes);
        new CompareRoutes(store, feedback, templates, clock).addTo(routes);
        new CompatibilityRoutes(models, runtime).addTo(routes);
        new DecisionRoutes(service, store, new Rerun(), templates, feedback, settings, clock).addTo(routes);
        new WireRoutes(service, templates).addTo(routes);
        new FeedbackRoutes(feedback, store, clock).addTo(routes);
        new HistoryEditRoutes(store, templates, clock, hmacKey).addTo(routes);
        new SettingsRoutes(settings, store, retention).addTo(routes);
        new ExampleRoutes(new ExampleStore(database), store, feedback, templates, files, clock, hmacKey).addTo(routes);
    }

    /** Sweeps history now: decisions past their retention, unused files. */
    public void sweep() {
        retention.sweep();
    }

    /** Starts the hourly history sweep. */
    public void start() {
        retention.start();
    }

    @Override
    public void close() {
        retention.close();
        service.close();
    }
}
