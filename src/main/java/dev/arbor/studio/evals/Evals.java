package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.instances.ServerInstances;
import dev.arbor.platform.instances.StoppedServerWork;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.decisions.Decisions;
import dev.arbor.studio.examples.ExampleStore;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.templates.Templates;
import dev.arbor.studio.work.WorkError;
import dev.arbor.studio.work.WorkStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Evals ({@code /v1/studio/evals}): a template's versions, on one or more models, run over labelled items and
 * measured — accuracy, calibration, a fitted temperature and a suggested act threshold per question, and what changed
 * from one version to the next. {@code apply} writes a target's fitted settings into a new template version. A target
 * is a template version on a model and every item goes through the decision path, so whatever a version decides with
 * (a fitted head, when versions can reference one) is measured and compared here unchanged.
 */
public final class Evals implements AutoCloseable {
    private static final int MAX_TRAINING_DECISIONS = 10_000;

    private final EvalStore store;
    private final Templates templates;
    private final Decisions decisions;
    private final DataSets dataSets;
    private final ServerInstances instances;
    private final Clock clock;
    private final EvalRunner runner;
    private final boolean readOnly;
    private final StoppedServerWork stopped;

    /** @param instances this server, which owns the evals it queues, and the others on the database */
    public Evals(
            Database database,
            Clock clock,
            Templates templates,
            Decisions decisions,
            ExampleStore examples,
            HistoryStore history,
            FeedbackStore feedback,
            ServerInstances instances) {
        this.store = new EvalStore(database);
        this.templates = requireNonNull(templates, "templates");
        this.decisions = requireNonNull(decisions, "decisions");
        this.clock = requireNonNull(clock, "clock");
        this.instances = requireNonNull(instances, "instances");
        this.dataSets = new DataSets(examples, history, feedback, templates, clock);
        this.runner = new EvalRunner(store, decisions, clock);
        this.readOnly = database.readOnly();
        this.stopped = new StoppedServerWork(instances, "evals", this::failUnfinished);
    }

    public void addRoutes(Routes routes) {
        new EvalRoutes(this, store, new EvalApply(store, templates)).addTo(routes);
    }

    /**
     * Fails the evals that stopped servers left queued or running (after the decisions' recovery has forgotten those
     * servers), and on a shared database looks again at every heartbeat.
     */
    public void start() {
        if (!readOnly) {
            stopped.start();
        }
    }

    private int failUnfinished() {
        return store.failUnfinishedOfUnregistered(
                WorkError.of(
                        ErrorCode.INTERNAL_ERROR,
                        "The server stopped while this eval was queued or running; it was not run again. Start it "
                                + "again (POST /v1/studio/evals) if it is still needed."),
                clock.millis());
    }

    /**
     * A labelled input a head may train on.
     *
     * @param input what the decision reads: {@code variables} or {@code state}
     * @param expected the labels by question
     */
    public record Labelled(String source, ObjectNode input, ObjectNode expected) {
        public Labelled {
            requireNonNull(source, "source");
            input = input.deepCopy();
            expected = expected.deepCopy();
        }
    }

    /**
     * What a head of this template may learn from: its calibration-split examples and its feedback-labelled decisions
     * (at most {@value #MAX_TRAINING_DECISIONS}, newest first), labelled for these questions. Never the test split,
     * which evals measure on.
     */
    public List<Labelled> trainingItems(String templateId, Set<String> questions) {
        requireNonNull(templateId, "templateId");
        var items = new ArrayList<Labelled>();
        var sets = List.of(
                new EvalRequest.Examples(Optional.of("calibration"), List.of(), List.of()),
                new EvalRequest.History(Map.of(), MAX_TRAINING_DECISIONS));
        for (EvalRequest.DataSet set : sets) {
            dataSets.found(set, Optional.of(templateId), questions).stream()
                    .map(item -> new Labelled(item.source(), item.input(), item.expected()))
                    .forEach(items::add);
        }
        return items;
    }

    /** Checks an eval request, gathers its items and queues it; returns it as stored (queued). */
    EvalStore.Stored create(ObjectNode body) {
        EvalRequest request = EvalRequest.parse(body);
        Optional<Templates.Resolved> template = request.template().map(reference -> templates.resolve(reference));
        List<String> known = template.map(
                        t -> List.copyOf(t.definition().questions().keySet()))
                .orElseGet(() -> {
                    var keys = new ArrayList<String>();
                    request.definition()
                            .orElseThrow()
                            .get("questions")
                            .fieldNames()
                            .forEachRemaining(keys::add);
                    return keys;
                });
        List<String> questions = questions(request, known);
        var targets = new ArrayList<EvalRunner.Target>();
        for (int i = 0; i < request.targets().size(); i++) {
            targets.add(target(i, request, request.targets().get(i), template));
        }
        List<DataSets.Item> items =
                dataSets.items(request.dataSet(), template.map(Templates.Resolved::id), new LinkedHashSet<>(questions));
        for (int i = 0; i < targets.size(); i++) {
            check(targets.get(i), request.targets().get(i), items.getFirst());
        }
        String id = Ids.next("eval");
        ObjectNode shown = Json.object();
        if (template.isPresent()) {
            shown.putObject("template")
                    .put("id", template.get().id())
                    .put("reference", template.get().reference());
        } else {
            shown.putNull("template");
        }
        ArrayNode targetList = shown.putArray("targets");
        targets.forEach(t -> targetList.add(t.json()));
        shown.set("data_set", request.dataSet().json());
        shown.put("items", items.size());
        questions.forEach(shown.putArray("questions")::add);
        shown.put("error_budget", request.errorBudget());
        shown.put("store", request.store());
        shown.set("warnings", Json.mapper().valueToTree(request.warnings()));
        store.insert(
                id,
                instances.id(),
                template.map(Templates.Resolved::id),
                shown,
                items.size() * targets.size(),
                clock.millis());
        runner.submit(new EvalRunner.Job(id, targets, items, questions, request.errorBudget()));
        return store.find(id).orElseThrow();
    }

    /** The questions measured: those asked for (each a question of the definition), else all of them. */
    private static List<String> questions(EvalRequest request, List<String> known) {
        if (request.questions().isEmpty()) {
            return known;
        }
        var problems = new ArrayList<Problem>();
        for (int i = 0; i < request.questions().size(); i++) {
            String question = request.questions().get(i);
            if (!known.contains(question)) {
                String param = ParamPath.index("questions", i);
                problems.add(new Problem(
                        ErrorCode.UNKNOWN_QUESTION,
                        param,
                        "`" + param + "` is '" + question + "', which is no question here (" + String.join(", ", known)
                                + ")." + Templates.didYouMean(question, known)));
            }
        }
        if (!problems.isEmpty()) {
            throw ApiException.of(problems);
        }
        return request.questions();
    }

    /** A target's decision body and how the eval shows it; its version resolved to a number. */
    private EvalRunner.Target target(
            int index, EvalRequest request, EvalRequest.Target sent, Optional<Templates.Resolved> template) {
        ObjectNode body = Json.object();
        ObjectNode json = Json.object().put("index", index);
        if (template.isPresent()) {
            Templates.Resolved version = sent.version()
                    .map(v -> resolveVersion(template.get().id(), v, sent.param()))
                    .orElse(template.get());
            body.put("template", version.id() + "@" + version.version());
            json.put("version", version.version());
        } else {
            ObjectNode definition = request.definition().orElseThrow();
            body.set("questions", definition.get("questions"));
            if (definition.path("settings").isObject()) {
                ObjectNode settings = ((ObjectNode) definition.get("settings")).deepCopy();
                settings.remove("models");
                body.set("settings", settings);
            }
            if (definition.path("model").isTextual()) {
                body.put("model", definition.get("model").textValue());
            }
            json.putNull("version");
        }
        sent.model().ifPresent(model -> body.put("model", model));
        json.put("model", sent.model().orElse(null));
        body.put("store", request.store());
        return new EvalRunner.Target(index, body, json);
    }

    private Templates.Resolved resolveVersion(String id, String version, String param) {
        try {
            return templates.resolve(id + "@" + version);
        } catch (ApiException e) {
            throw reparam(e, p -> param.startsWith("targets") ? param + ".version" : param);
        }
    }

    /**
     * Refuses a target whose model cannot run the eval (unknown, or unable to answer its questions) before anything
     * runs, with the target's param; other refusals belong to single items, which fail on their own.
     */
    private void check(EvalRunner.Target target, EvalRequest.Target sent, DataSets.Item first) {
        ObjectNode body = target.body().deepCopy();
        body.setAll(first.input());
        try {
            decisions.check(DecisionRequest.parse(body));
        } catch (ApiException e) {
            boolean aboutModel = e.problems().stream()
                    .anyMatch(p -> "model".equals(p.param()) || p.code() == ErrorCode.MODEL_NOT_FOUND);
            if (aboutModel) {
                String param = sent.model().isPresent()
                        ? sent.param().startsWith("targets") ? sent.param() + ".model" : sent.param()
                        : "template";
                throw reparam(e, p -> param);
            }
        }
    }

    private static ApiException reparam(ApiException e, UnaryOperator<String> param) {
        return ApiException.of(e.problems().stream()
                .map(p -> new Problem(p.code(), param.apply(p.param()), p.message()))
                .toList());
    }

    /** Cancels an unfinished eval; 409 {@code eval_finished} once it has finished. */
    EvalStore.Stored cancel(String id) {
        EvalStore.Stored eval = find(id);
        if (eval.status().finished()
                || !store.finish(id, WorkStatus.CANCELLED, Optional.empty(), Optional.empty(), clock.millis())) {
            throw ApiException.of(
                    ErrorCode.EVAL_FINISHED,
                    "eval_id",
                    "Eval " + id + " is " + find(id).status().wire() + "; only a queued or running eval can be "
                            + "cancelled.");
        }
        runner.cancel(id);
        return find(id);
    }

    /** Deletes an eval and its items, cancelling it first when it runs; its decisions stay in history. */
    void delete(String id) {
        EvalStore.Stored eval = find(id);
        if (!eval.status().finished()) {
            store.finish(id, WorkStatus.CANCELLED, Optional.empty(), Optional.empty(), clock.millis());
            runner.cancel(id);
        }
        store.delete(id);
    }

    EvalStore.Stored find(String id) {
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.EVAL_NOT_FOUND, "eval_id", "There is no eval '" + id + "'.");
    }

    @Override
    public void close() {
        stopped.close();
        runner.close();
    }
}
