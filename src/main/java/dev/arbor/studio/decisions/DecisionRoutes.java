package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.idempotency.Idempotency;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.feedback.Feedback;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.running.DecisionService;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.settings.StudioSettings;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The decision routes under {@code /v1/studio/decisions}. */
final class DecisionRoutes {
    private static final String BASE = "/v1/studio/decisions";

    private final DecisionService decisions;
    private final HistoryStore store;
    private final Rerun rerun;
    private final Templates templates;
    private final FeedbackStore feedback;
    private final StudioSettings settings;
    private final StoredDecisionHandlers stored;

    DecisionRoutes(
            DecisionService decisions,
            HistoryStore store,
            Rerun rerun,
            Templates templates,
            FeedbackStore feedback,
            StudioSettings settings,
            Clock clock) {
        this.decisions = requireNonNull(decisions, "decisions");
        this.store = requireNonNull(store, "store");
        this.rerun = requireNonNull(rerun, "rerun");
        this.templates = requireNonNull(templates, "templates");
        this.feedback = requireNonNull(feedback, "feedback");
        this.settings = requireNonNull(settings, "settings");
        this.stored = new StoredDecisionHandlers(store, templates, feedback, clock);
    }

    void addTo(Routes routes) {
        String one = BASE + "/{decision_id}";
        routes.group("studio.decisions")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .postWithFiles(
                        BASE,
                        "Make a decision (with background: true it answers at once, queued)",
                        MediaInput.MAX_BODY_BYTES,
                        this::create)
                .body(DecisionShapes.DECISION_REQUEST)
                .ok(HistoryShapes.DECISION)
                .get(BASE, "List decisions in history, newest first, with filters", stored::list)
                .query(PageParams.PARAMETERS)
                .query(HistoryShapes.VIEW, DecisionShapes.INCLUDE_PARAM)
                .query(HistoryShapes.FILTERS)
                .ok(Schema.list(HistoryShapes.LISTED))
                .get(
                        BASE + "/export",
                        "Export the decisions a filter matches as JSONL or CSV, streamed",
                        stored::export)
                .query(HistoryShapes.EXPORT_FORMAT)
                .query(HistoryShapes.FILTERS)
                .answers(200, "application/x-ndjson", HistoryShapes.JSON_LINES)
                .answers(200, "text/csv", Schema.any("A header row, then one row per answer"))
                .postWithFiles(
                        BASE + "/preview",
                        "Check a decision and show what the model would read, without running it",
                        MediaInput.MAX_BODY_BYTES,
                        this::preview)
                .body(DecisionShapes.DECISION_REQUEST)
                .ok(DecisionShapes.PREVIEW)
                .get(one, "Get a decision (?wait=N waits for a background one; ?format=decide renders it)", this::get)
                .query(DecisionShapes.WAIT.param(), DecisionShapes.INCLUDE_PARAM, DecisionShapes.RENDER)
                .ok(Schema.anyOf(HistoryShapes.DECISION, DecisionShapes.DECIDE_ANSWER))
                .get(one + "/input", "What a decision read, when history kept it", stored::input)
                .ok(HistoryShapes.INPUT)
                .patch(one, "Change a decision's metadata or pin", stored::patch)
                .body(HistoryShapes.DECISION_PATCH)
                .ok(HistoryShapes.DECISION)
                .delete(one, "Delete a decision from history", stored::delete)
                .ok(HistoryShapes.DELETED)
                .action(one + "/cancel", "Cancel a background decision that has not reached its model", this::cancel)
                .ok(HistoryShapes.DECISION)
                .action(
                        one + "/rerun",
                        "Run a stored decision again (optionally on another model or version)",
                        this::rerun)
                .ok(HistoryShapes.DECISION);
    }

    private void create(Context ctx) {
        DecisionRequest request = DecisionRequest.parse(Requests.jsonObject(ctx));
        Plan plan = decisions.plan(request, Planner.Purpose.RUN);
        var source = new Source("api", BASE, Requests.id(ctx), "explicit", Optional.empty());
        respond(ctx, plan, decisions.decide(plan, source, Requests.startedNanos(ctx)));
    }

    private void rerun(Context ctx) {
        String id = ctx.pathParam("decision_id");
        StoredDecision original = store.find(id).orElseThrow(() -> DecisionView.notFound(id));
        ObjectNode changes = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        Plan plan = decisions.plan(rerun.request(original, changes), Planner.Purpose.RUN);
        var source = new Source(
                "rerun",
                BASE + "/" + id + "/rerun",
                Requests.id(ctx),
                original.decided().template().map(Decided.Template::attribution).orElse("explicit"),
                Optional.of(id));
        respond(ctx, plan, decisions.decide(plan, source, Requests.startedNanos(ctx)));
    }

    private void respond(Context ctx, Plan plan, DecisionService.Outcome outcome) {
        boolean showInput = plan.include().stream().anyMatch(i -> i.startsWith("input"));
        Optional<DecisionInput> input = !showInput || plan.store() == StoreLevel.ANSWERS_ONLY
                ? Optional.empty()
                : outcome.input().or(() -> Optional.of(decisions.input(plan)));
        ctx.header("x-studio-stored", outcome.stored().wire());
        if (plan.store() == StoreLevel.NONE) {
            Idempotency.keepInMemoryOnly(ctx); // nothing of a decision stored none is written down, a replay included
        }
        outcome.decisionId().ifPresent(id -> {
            ctx.header("x-studio-decision-id", id);
            ctx.header("location", BASE + "/" + id);
        });
        Responses.ok(
                ctx,
                DecisionView.present(outcome.decision(), input, showInput, plan.metadata(), false, plan.include()));
    }

    private void preview(Context ctx) {
        DecisionRequest request = DecisionRequest.parse(Requests.jsonObject(ctx));
        Plan plan = decisions.plan(request, Planner.Purpose.PREVIEW);
        Responses.ok(ctx, DecisionPreview.of(plan, decisions.input(plan)));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("decision_id");
        Set<String> include = includeParameter(ctx);
        StoredDecision decision = DecisionShapes.WAIT.read(ctx, () -> find(id), StoredDecision::finished);
        Optional<String> format = DecisionShapes.RENDER.read(ctx);
        if (format.isPresent()) {
            if (!format.get().equals("decide")) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER,
                        "format",
                        "`format` may be decide (the body " + "POST /v1/decide answers), not '" + format.get() + "'.");
            }
            Decided decided = decision.decided();
            if (decided.answered().isEmpty()) {
                throw ApiException.of(
                        ErrorCode.DECISION_FINISHED,
                        "format",
                        "Decision " + id + " is " + decision.status().wire() + " and has no answers to render.");
            }
            Responses.ok(ctx, WireAnswer.of(decided));
            return;
        }
        List<Feedback> entries = feedback.list(id);
        ObjectNode shown = StoredDecisionHandlers.show(decision, include);
        shown.set("feedback", FeedbackStore.labels(entries));
        Optional<Long> expires = expiresAt(decision, !entries.isEmpty());
        if (expires.isPresent()) {
            shown.put("expires_at", expires.get() / 1000);
        } else {
            shown.putNull("expires_at");
        }
        Responses.ok(ctx, shown);
    }

    /**
     * When the retention sweep will delete a decision: its template's retention or the studio's after it was made;
     * never when that is 0 (for ever), when it is pinned, or labelled while labelled decisions are kept.
     */
    private Optional<Long> expiresAt(StoredDecision decision, boolean labelled) {
        StudioSettings.Values values = settings.current();
        int days = decision.templateId().map(templates.retentionDays()::get).orElse(values.retentionDays());
        if (days == 0 || decision.pinned() || (labelled && values.keepLabelled())) {
            return Optional.empty();
        }
        return Optional.of(decision.createdAtMillis() + days * 86_400_000L);
    }

    private void cancel(Context ctx) {
        Responses.ok(ctx, StoredDecisionHandlers.show(decisions.cancel(ctx.pathParam("decision_id")), Set.of()));
    }

    private StoredDecision find(String id) {
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }

    static Set<String> includeParameter(Context ctx) {
        List<String> values = ctx.queryParams(DecisionShapes.INCLUDE_PARAM.name());
        if (values.isEmpty()) {
            return Set.of();
        }
        var problems = new Problems();
        Set<String> include =
                DecisionRequest.include(Json.mapper().valueToTree(String.join(",", values)), "include", problems);
        if (!problems.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "include",
                    problems.list().getFirst().message());
        }
        return include;
    }
}
