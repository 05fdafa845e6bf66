package dev.arbor.studio;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.decisions.Decisions;
import dev.arbor.studio.erasure.HistoryEditRoutes;
import dev.arbor.studio.erasure.Retention;
import dev.arbor.studio.evals.Evals;
import dev.arbor.studio.examples.ExampleRoutes;
import dev.arbor.studio.examples.ExampleStore;
import dev.arbor.studio.feedback.FeedbackRoutes;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.FileUsers;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.fitting.Fits;
import dev.arbor.studio.heads.Heads;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.HistoryTotals;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.running.DeployedModels;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.settings.SettingsRoutes;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.stats.CompareRoutes;
import dev.arbor.studio.stats.StatsRoutes;
import dev.arbor.studio.templates.TemplateHistory;
import dev.arbor.studio.templates.Templates;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashSet;
import java.util.Optional;

/**
 * The studio, built in one place: templates, files, decisions, history, feedback, test examples, evals, statistics
 * and the studio's settings, each part made here by hand and given the parts it needs.
 */
public final class Studio implements AutoCloseable {
    private final Database database;
    private final Clock clock;
    private final byte[] hmacKey;
    private final Templates templates;
    private final StudioFiles files;
    private final HistoryStore history;
    private final StudioSettings settings;
    private final FeedbackStore feedback;
    private final Retention retention;
    private final Decisions decisions;
    private final Evals evals;
    private final Fits fits;

    /**
     * Opens the studio; {@link #start} marks failed the decisions that stopped servers left queued or running.
     *
     * @param instances this server, which owns the background decisions it queues, and the others on the database
     * @param dataDir where uploaded files are kept
     * @param hmacKey the key of the HMACs that stand in for sensitive values in history
     * @param meters where decisions are counted and timed
     */
    public Studio(
            Database database,
            Clock clock,
            Models models,
            ModelRuntime runtime,
            ServerInstances instances,
            Path dataDir,
            byte[] hmacKey,
            MeterRegistry meters) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
        this.templates = new Templates(database, clock, models, templateHistory(database, clock));
        this.files = new StudioFiles(database, clock, dataDir, fileUsers(database, clock));
        this.history = new HistoryStore(database, clock, files::available);
        this.settings = new StudioSettings(database, clock);
        this.feedback = new FeedbackStore(database);
        this.retention = new Retention(history, () -> settings.current().retention(), templates, files, clock);
        var heads = new Heads(database);
        this.decisions = new Decisions(
                database, clock, templates, models, runtime, heads, instances, files, history, settings, feedback,
                hmacKey, meters);
        this.evals = new Evals(
                database, clock, templates, decisions, new ExampleStore(database), history, feedback, instances);
        this.fits = new Fits(database, heads, clock, templates, decisions, evals, runtime, instances);
    }

    /** The decisions that name each template, for templates to consult before they delete one. */
    private static TemplateHistory templateHistory(Database database, Clock clock) {
        var store = new HistoryStore(database, clock, file -> false);
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
    private static FileUsers fileUsers(Database database, Clock clock) {
        var decisions = new HistoryStore(database, clock, file -> false);
        var examples = new ExampleStore(database);
        return fileIds -> {
            var used = new HashSet<>(decisions.filesInUse(fileIds));
            used.addAll(examples.filesInUse(fileIds));
            return used;
        };
    }

    /** Whether a template reference ({@code id}, {@code id@3}, {@code id@alias}) names a version decisions can run. */
    public boolean hasTemplate(String reference) {
        try {
            templates.resolve(requireNonNull(reference, "reference"));
            return true;
        } catch (ApiException e) {
            return false; // the reference names nothing: the one answer resolve gives by an exception
        }
    }

    /**
     * Asks a template's questions about a situation, as a router's decide step does, and reads the answer to its first
     * question; the decision is kept in history as any decision (its surface {@code router}).
     *
     * @param template a template reference ({@code id}, {@code id@3}, {@code id@alias})
     * @param situation the text the question is asked about (the decision's {@code state})
     * @param requestId the inference request's id, which history keeps with the decision
     */
    public RoutedDecision decideForRouter(String template, String situation, String requestId) {
        ObjectNode body = Json.object()
                .put("template", requireNonNull(template, "template"))
                .put("state", requireNonNull(situation, "situation"));
        Decided decision = decisions.decide(
                DecisionRequest.parse(body), Source.inProcess("router", requireNonNull(requestId, "requestId")));
        Optional<Answer> first = decision.answered().flatMap(Decided.Answered::first);
        String answer = first.map(Answer::word).orElse("");
        return new RoutedDecision(
                answer,
                first.map(a -> a.probabilities().getOrDefault(answer, a.gate().certainty()))
                        .orElse(0.0),
                first.map(a -> a.gate().act()).orElse(false),
                decision.kept() ? Optional.of(decision.id()) : Optional.empty());
    }

    /** The studio's routes; {@code POST /v1/decide} serves the deployments {@code deployed} knows too. */
    public void addRoutes(Routes routes, DeployedModels deployed) {
        templates.addRoutes(routes);
        files.addRoutes(routes);
        new StatsRoutes(history, new HistoryTotals(database), feedback, templates, clock).addTo(routes);
        new CompareRoutes(history, feedback, templates, clock).addTo(routes);
        decisions.addRoutes(routes, requireNonNull(deployed, "deployed"));
        new FeedbackRoutes(feedback, history, clock).addTo(routes);
        new HistoryEditRoutes(history, templates, clock, hmacKey).addTo(routes);
        new SettingsRoutes(settings, history, retention).addTo(routes);
        new ExampleRoutes(new ExampleStore(database), history, feedback, templates, files, clock, hmacKey)
                .addTo(routes);
        evals.addRoutes(routes);
        fits.addRoutes(routes);
    }

    /** Sweeps history now: decisions past their retention, unused files. */
    public void sweep() {
        retention.sweep();
    }

    /**
     * Marks failed the decisions stopped servers left unfinished (and keeps doing so while replicas share the
     * database), then starts the hourly history sweep.
     */
    public void start() {
        decisions.start();
        evals.start(); // after the decisions, whose recovery forgets the stopped servers
        fits.start();
        retention.start();
    }

    @Override
    public void close() {
        retention.close();
        fits.close();
        evals.close();
        decisions.close();
    }
}
