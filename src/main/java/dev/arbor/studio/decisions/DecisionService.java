package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.ModelRuntime;
import dev.arbor.models.Scoring;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Warning;
import dev.arbor.platform.http.WarningCode;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Rounding;
import dev.arbor.studio.templates.Substitution;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs decisions: the planned decision goes to its model, the answers are gated, and the decision is recorded at
 * its storage level. A failure at the model is a failed decision in history (when history keeps it) whose id the
 * error carries. Background decisions run here too, and can be cancelled until they reach the model.
 */
final class DecisionService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecisionService.class);

    /**
     * What a call produced and what history kept of it.
     *
     * @param input what history keeps of the input (when it keeps it), as the decision's read-back shows it
     */
    record Outcome(ObjectNode decision, String stored, Optional<String> decisionId, Optional<ObjectNode> input) {}

    /** How far a background decision has gone: it may be cancelled until it reaches the model. */
    private enum Phase {
        WAITING,
        AT_MODEL,
        CANCELLED
    }

    /** A background decision on its way; {@code queuedNanos} is when it was queued, which its time counts from. */
    private record Running(Plan plan, long queuedNanos, AtomicReference<Thread> thread, AtomicReference<Phase> phase) {}

    private final HistoryStore store;
    private final GroupCommit history;
    private final Planner planner;
    private final ModelRuntime runtime;
    private final StudioFiles files;
    private final Clock clock;
    private final DecisionMetrics metrics;
    private final ExecutorService background = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("arbor-decision-", 0).factory());
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    /** Set while the server stops: work cut short then is left as it stands, for the next start to recover. */
    private volatile boolean closing;

    DecisionService(
            HistoryStore store,
            Planner planner,
            ModelRuntime runtime,
            StudioFiles files,
            Clock clock,
            DecisionMetrics metrics) {
        this.store = requireNonNull(store, "store");
        this.history = new GroupCommit(store);
        this.planner = requireNonNull(planner, "planner");
        this.runtime = requireNonNull(runtime, "runtime");
        this.files = requireNonNull(files, "files");
        this.clock = requireNonNull(clock, "clock");
        this.metrics = requireNonNull(metrics, "metrics");
    }

    Plan plan(DecisionRequest request, boolean preview) {
        return planner.plan(request, preview);
    }

    /**
     * Runs a checked decision now, or queues it when it asks for the background.
     *
     * @param receivedNanos when the request arrived ({@link System#nanoTime()}), which its total time counts from
     */
    Outcome decide(Plan plan, Source source, long receivedNanos) {
        String id = Ids.next("dec");
        long created = clock.millis();
        // worked out once: keeping media makes files, which a second pass would make again
        Optional<ObjectNode> input =
                plan.store() == StoreLevel.FULL ? Optional.of(input(plan, plan.keepMedia())) : Optional.empty();
        if (plan.background()) {
            return queue(plan, source, id, created, input);
        }
        // counted in flight from here to the end, so that history's writer knows when waiting for company pays
        try (var _ = plan.store() == StoreLevel.NONE ? GroupCommit.NOT_KEPT : history.announce()) {
            Ran ran;
            try {
                ran = ask(plan, 0, receivedNanos, () -> {});
            } catch (ApiException failure) {
                metrics.failed(plan, failure.code(), receivedNanos);
                throw failed(plan, source, id, created, input, failure);
            }
            metrics.completed(plan, receivedNanos);
            return complete(plan, source, id, created, input, ran);
        }
    }

    /**
     * Answers and timings of one run: {@code totalMillis} from arrival (or, in the background, from the end of
     * the queue, plus the queue) to the answers, before they are recorded.
     */
    private record Ran(
            Answers.Result answers,
            int inputTokens,
            double queueMillis,
            double loadMillis,
            double modelMillis,
            double totalMillis) {}

    private Ran ask(Plan plan, double queueMillis, long startedNanos, Runnable atModel) {
        long started = System.nanoTime();
        if (plan.model().isEmpty()) {
            throw ApiException.of(
                    ErrorCode.MODEL_NOT_LOADED,
                    "model",
                    "No model is loaded and none is named, and "
                            + "decisions may not load one (ARBOR_AUTO_LOAD is off); load a model (POST /models/{id}/load) "
                            + "or name a loaded one in `model`.");
        }
        var toAsk = new ArrayList<Scoring.Question>();
        var probabilities = new HashMap<String, List<Double>>();
        for (Scoring.Question question : plan.primitives()) {
            if (question.options().size() == 1) {
                probabilities.put(question.key(), List.of(1.0)); // one option needs no model
            } else {
                toAsk.add(question);
            }
        }
        long[] atModelNanos = {started};
        int tokens = 0;
        if (!toAsk.isEmpty()) {
            var request = new Scoring.Request(
                    Substitution.asText(plan.state()),
                    plan.media().stream().map(MediaInput::type).toList(),
                    toAsk);
            Scoring.Answer answer = runtime.score(plan.model().get(), request, () -> {
                atModel.run();
                atModelNanos[0] = System.nanoTime();
            });
            probabilities.putAll(answer.probabilities());
            tokens = answer.inputTokens();
        }
        long answered = System.nanoTime();
        Answers.Result answers = Answers.of(plan.questions(), probabilities, plan.settings());
        return new Ran(
                answers,
                tokens,
                queueMillis,
                (atModelNanos[0] - started) / 1e6,
                (answered - atModelNanos[0]) / 1e6,
                queueMillis + (System.nanoTime() - startedNanos) / 1e6);
    }

    private Outcome complete(Plan plan, Source source, String id, long created, Optional<ObjectNode> input, Ran ran) {
        long completed = clock.millis();
        var warnings = new ArrayList<>(plan.warnings());
        ObjectNode body = body(
                plan, source, id, "completed", created, Optional.of(completed), Optional.of(ran), Optional.empty());
        String stored = plan.store().wire();
        if (plan.store() != StoreLevel.NONE) {
            try {
                history.write(record(plan, source, id, "completed", created, completed, body, input, Optional.of(ran)));
            } catch (RuntimeException e) {
                stored = storeFailed(plan, id, e, warnings);
            }
        }
        body.set("warnings", Json.mapper().valueToTree(warnings));
        if (stored.equals("failed")) {
            body.put("store", "none");
        }
        boolean kept = !stored.equals("failed") && !stored.equals("none");
        return new Outcome(body, stored, kept ? Optional.of(id) : Optional.empty(), kept ? input : Optional.empty());
    }

    /** {@code serve}: the answer goes out with a warning; {@code fail}: 503 {@code store_failed}. */
    private static String storeFailed(Plan plan, String id, RuntimeException cause, List<Warning> warnings) {
        LOG.warn("decision {} could not be saved to history: {}", id, cause.toString());
        if (plan.failOnStoreError()) {
            throw ApiException.of(
                    ErrorCode.STORE_FAILED,
                    null,
                    "The decision was made but could not be saved to "
                            + "history, and on_store_error is fail; try again.");
        }
        warnings.add(new Warning(
                WarningCode.HISTORY_WRITE_FAILED,
                "The answer is right, but it could not be " + "saved to history.",
                null));
        return "failed";
    }

    /** Stores a decision that failed at the model (when history keeps it) and returns the error to send. */
    private ApiException failed(
            Plan plan, Source source, String id, long created, Optional<ObjectNode> input, ApiException failure) {
        if (plan.store() == StoreLevel.NONE) {
            return failure;
        }
        long completed = clock.millis();
        ObjectNode body = body(
                plan, source, id, "failed", created, Optional.of(completed), Optional.empty(), Optional.of(failure));
        try {
            history.write(record(plan, source, id, "failed", created, completed, body, input, Optional.empty()));
            return failure.withField("decision_id", id);
        } catch (RuntimeException e) {
            LOG.warn("failed decision {} could not be saved to history: {}", id, e.toString());
            return failure;
        }
    }

    // ---- background

    private Outcome queue(Plan plan, Source source, String id, long created, Optional<ObjectNode> input) {
        ObjectNode body =
                body(plan, source, id, "queued", created, Optional.empty(), Optional.empty(), Optional.empty());
        body.set("warnings", Json.mapper().valueToTree(plan.warnings()));
        history.write(record(plan, source, id, "queued", created, 0, body, input, Optional.empty()));
        var run = new Running(plan, System.nanoTime(), new AtomicReference<>(), new AtomicReference<>(Phase.WAITING));
        running.put(id, run); // before it may start, so that a cancel always finds it
        background.submit(() -> {
            run.thread().set(Thread.currentThread());
            try {
                runInBackground(plan, source, body, created, input, run);
            } catch (RuntimeException e) {
                LOG.error("background decision {} could not be recorded", id, e);
            } finally {
                running.remove(id);
            }
        });
        return new Outcome(body, plan.store().wire(), Optional.of(id), input);
    }

    private void runInBackground(
            Plan plan, Source source, ObjectNode queued, long created, Optional<ObjectNode> input, Running run) {
        AtomicReference<Phase> phase = run.phase();
        String id = queued.path("id").asText();
        ObjectNode inProgress = queued.deepCopy().put("status", "in_progress");
        if (phase.get() == Phase.CANCELLED
                || !store.transition(id, List.of("queued"), "in_progress", inProgress, clock.millis())) {
            return;
        }
        double queueMillis = clock.millis() - created;
        try {
            Ran ran = ask(plan, queueMillis, System.nanoTime(), () -> {
                if (!phase.compareAndSet(Phase.WAITING, Phase.AT_MODEL)) {
                    throw new CancellationException();
                }
            });
            long completed = clock.millis();
            ObjectNode body = body(
                    plan, source, id, "completed", created, Optional.of(completed), Optional.of(ran), Optional.empty());
            body.set("warnings", Json.mapper().valueToTree(plan.warnings()));
            store.finish(record(plan, source, id, "completed", created, completed, body, input, Optional.of(ran)));
            metrics.completed(plan, run.queuedNanos());
        } catch (CancellationException e) {
            // cancelled while it waited for its model; the cancel recorded it
        } catch (ApiException failure) {
            if (phase.get() != Phase.CANCELLED && !closing) {
                finishFailed(plan, source, id, created, input, failure);
                metrics.failed(plan, failure.code(), run.queuedNanos());
            }
        } catch (RuntimeException e) {
            if (phase.get() != Phase.CANCELLED && !closing) {
                LOG.error("background decision {} failed", id, e);
                finishFailed(
                        plan,
                        source,
                        id,
                        created,
                        input,
                        ApiException.of(
                                ErrorCode.INTERNAL_ERROR,
                                null,
                                "The decision failed unexpectedly ("
                                        + e.getClass().getSimpleName() + "); the server log " + "has the details."));
                metrics.failed(plan, ErrorCode.INTERNAL_ERROR, run.queuedNanos());
            }
        }
    }

    private void finishFailed(
            Plan plan, Source source, String id, long created, Optional<ObjectNode> input, ApiException failure) {
        long completed = clock.millis();
        ObjectNode body = body(
                plan, source, id, "failed", created, Optional.of(completed), Optional.empty(), Optional.of(failure));
        body.set("warnings", Json.mapper().valueToTree(plan.warnings()));
        store.finish(record(plan, source, id, "failed", created, completed, body, input, Optional.empty()));
    }

    /** Thrown at the model's door when the decision was cancelled while it waited. */
    private static final class CancellationException extends RuntimeException {
        CancellationException() {
            super("cancelled", null, false, false);
        }
    }

    /**
     * Cancels a decision that has not reached its model; 409 {@code decision_finished} once it has, or has
     * finished.
     */
    StoredDecision cancel(String id) {
        StoredDecision decision = store.find(id).orElseThrow(() -> DecisionView.notFound(id));
        Running run = running.get(id);
        if (decision.finished() || (run != null && !run.phase().compareAndSet(Phase.WAITING, Phase.CANCELLED))) {
            throw ApiException.of(
                    ErrorCode.DECISION_FINISHED,
                    null,
                    decision.finished()
                            ? "Decision " + id + " is " + decision.status()
                                    + "; only a queued decision or one waiting for its model can be cancelled."
                            : "Decision " + id + " is with the model and finishes in a moment; it can no longer be "
                                    + "cancelled.");
        }
        long now = clock.millis();
        ObjectNode body = decision.body().deepCopy();
        body.put("status", "cancelled");
        body.put("completed_at", now / 1000);
        if (!store.transition(id, List.of("queued", "in_progress"), "cancelled", body, now)) {
            throw ApiException.of(ErrorCode.DECISION_FINISHED, null, "Decision " + id + " finished meanwhile.");
        }
        if (run != null) {
            metrics.cancelled(run.plan(), run.queuedNanos());
            if (run.thread().get() != null) {
                run.thread().get().interrupt();
            }
        }
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }

    // ---- the decision as JSON

    private ObjectNode body(
            Plan plan,
            Source source,
            String id,
            String status,
            long created,
            Optional<Long> completed,
            Optional<Ran> ran,
            Optional<ApiException> error) {
        ObjectNode body = Json.object();
        body.put("id", id);
        body.put("object", "decision");
        body.put("status", status);
        body.put("created_at", created / 1000);
        if (completed.isPresent()) {
            body.put("completed_at", completed.get() / 1000);
        } else {
            body.putNull("completed_at");
        }
        if (plan.template().isPresent()) {
            var template = plan.template().get();
            ObjectNode json = body.putObject("template");
            json.put("id", template.id());
            json.put("version", template.version());
            json.put("ref", template.reference());
            json.put("resolved_from", template.resolvedFrom());
            json.put("attribution", source.attribution());
        } else {
            body.putNull("template");
        }
        body.put("model", plan.model().orElse(null));
        body.put("model_requested", plan.modelRequested().orElse(null));
        body.set("extensions", plan.extensions());
        if (ran.isPresent()) {
            Answers.Result answers = ran.get().answers();
            body.set("answers", answers.answers());
            body.put("act", answers.act());
            ArrayNode review = body.putArray("needs_review");
            answers.needsReview().forEach(review::add);
        } else {
            body.putNull("answers");
            body.putNull("act");
            body.putArray("needs_review");
        }
        body.set("settings", plan.settings().json());
        ObjectNode usage = body.putObject("usage");
        usage.put("input_tokens", ran.map(Ran::inputTokens).filter(t -> t > 0).orElse(plan.estimatedTokens()));
        usage.put("output_tokens", 0);
        ObjectNode timing = body.putObject("timing");
        timing.put("queue_ms", Rounding.round(ran.map(Ran::queueMillis).orElse(0.0), 3));
        timing.put("load_ms", Rounding.round(ran.map(Ran::loadMillis).orElse(0.0), 3));
        timing.put("model_ms", Rounding.round(ran.map(Ran::modelMillis).orElse(0.0), 3));
        timing.put("total_ms", Rounding.round(ran.map(Ran::totalMillis).orElse(0.0), 3));
        body.set("warnings", Json.mapper().valueToTree(plan.warnings()));
        ObjectNode origin = body.putObject("source");
        origin.put("surface", source.surface());
        origin.put("endpoint", source.endpoint());
        origin.put("request_id", source.requestId());
        body.put("rerun_of", source.rerunOf().orElse(null));
        body.put("store", plan.store().wire());
        if (error.isPresent()) {
            ObjectNode json = body.putObject("error");
            json.put("type", error.get().code().type());
            json.put("code", error.get().code().code());
            json.put("message", error.get().problems().getFirst().message());
        } else {
            body.putNull("error");
        }
        ran.ifPresent(r -> body.set("raw_probabilities", r.answers().raw()));
        return body;
    }

    private StoredDecision record(
            Plan plan,
            Source source,
            String id,
            String status,
            long created,
            long completed,
            ObjectNode body,
            Optional<ObjectNode> input,
            Optional<Ran> ran) {
        return new StoredDecision(
                id,
                status,
                plan.store() == StoreLevel.NONE ? StoreLevel.FULL : plan.store(),
                source.surface(),
                source.endpoint(),
                source.requestId(),
                plan.template().map(t -> t.id()),
                plan.template().map(t -> t.version()),
                plan.model(),
                ran.map(r -> r.answers().act()),
                ran.map(r -> r.answers().minCertainty()),
                Optional.ofNullable(body.path("error").path("code").textValue()),
                false,
                plan.metadata(),
                source.rerunOf(),
                created,
                completed > 0 ? Optional.of(completed) : Optional.empty(),
                ran.map(r -> body.path("timing").path("total_ms").asDouble()),
                body,
                input,
                ran.map(r -> r.answers().rows()).orElse(List.of()),
                plan.secrets(),
                input.map(i -> searchText(plan)));
    }

    private static final int MAX_SEARCH_TEXT = 200_000;

    /** What search finds a decision by: its situation as stored (sensitive values masked) and its text variables. */
    private static String searchText(Plan plan) {
        var text = new StringBuilder(Substitution.asText(plan.storedState()));
        plan.storedVariables()
                .ifPresent(variables -> variables.properties().forEach(e -> {
                    if (e.getValue().isTextual() && !e.getValue().textValue().startsWith("data:")) {
                        text.append('\n').append(e.getValue().textValue());
                    }
                }));
        return text.length() > MAX_SEARCH_TEXT ? text.substring(0, MAX_SEARCH_TEXT) : text.toString();
    }

    /**
     * What the decision read, as history keeps it: sensitive values as HMACs and markers, media as hashes, and, when
     * {@code keepMedia}, as files (a new one for bytes sent inline; the upload itself for a file id). Sensitive
     * media are never kept.
     */
    ObjectNode input(Plan plan, boolean keepMedia) {
        ObjectNode input = Json.object();
        ArrayNode items = Json.mapper().createArrayNode();
        var keptIds = new HashMap<String, String>();
        for (MediaInput item : plan.media()) {
            boolean sensitive = item.variable().map(v -> plan.secrets().has(v)).orElse(false);
            boolean kept = keepMedia && !sensitive;
            byte[] bytes = item.inline() ? item.decode() : null;
            StudioFile file = item.file().orElse(null);
            if (kept && file == null) {
                file = files.keep(bytes, item.type(), item.contentType(), item.name());
            }
            ObjectNode json = items.addObject();
            json.put("type", item.type());
            json.put("file_id", kept ? file.id() : null);
            json.put("name", sensitive ? null : item.name().orElse(null));
            json.put("variable", item.variable().orElse(null));
            json.put("content_type", item.contentType());
            json.put(
                    "bytes",
                    bytes != null ? bytes.length : item.file().orElseThrow().bytes());
            json.put(
                    "sha256",
                    sensitive
                            ? plan.secrets().path(item.variable().orElseThrow()).asText()
                            : "sha256:"
                                    + (bytes != null
                                            ? Digests.sha256Hex(bytes)
                                            : item.file().orElseThrow().sha256()));
            json.put("available", kept);
            if (kept) {
                item.variable()
                        .ifPresent(v -> keptIds.put(v, json.get("file_id").textValue()));
            }
        }
        input.set(
                "variables",
                plan.storedVariables()
                        .map(v -> (JsonNode) withMediaMarkers(v, plan, keptIds))
                        .orElse(null));
        input.set("state", plan.storedState());
        input.set("media", items);
        input.set("questions", Planner.questionsJson(plan.questions()));
        input.put("rendered_state", Substitution.asText(plan.storedState()));
        return input;
    }

    /** A media variable reads as the file history kept, or says that its bytes were not kept. */
    private static ObjectNode withMediaMarkers(ObjectNode variables, Plan plan, Map<String, String> keptIds) {
        ObjectNode copy = variables.deepCopy();
        for (MediaInput item : plan.media()) {
            item.variable()
                    .filter(v -> copy.path(v).isTextual() && !plan.secrets().has(v))
                    .ifPresent(v ->
                            copy.put(v, keptIds.containsKey(v) ? keptIds.get(v) : "[" + item.type() + " not kept]"));
        }
        return copy;
    }

    /** Stops taking background work; what runs is abandoned and recovered as failed at the next start. */
    @Override
    public void close() {
        closing = true;
        background.shutdownNow();
    }
}
