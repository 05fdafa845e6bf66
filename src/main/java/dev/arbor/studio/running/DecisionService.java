package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.tracing.Propagation;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.heads.Head;
import dev.arbor.studio.heads.Heads;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Question;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
 * error carries. Background decisions run here too, and can be cancelled until they reach the model. With
 * {@link Source}, this is what the decision routes use of this package.
 */
public final class DecisionService implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecisionService.class);

    /**
     * What a call produced and what history kept of it.
     *
     * @param input what history keeps of the input (when it keeps it), as the decision's read-back shows it
     */
    public record Outcome(Decided decision, Stored stored, Optional<String> decisionId, Optional<DecisionInput> input) {
        public Outcome {
            requireNonNull(decision, "decision");
            requireNonNull(stored, "stored");
            requireNonNull(decisionId, "decisionId");
            requireNonNull(input, "input");
        }
    }

    /** What history kept of a decision, as the {@code x-studio-stored} header says it. */
    public enum Stored {
        FULL,
        ANSWERS_ONLY,
        NONE,
        /** History should have kept it, but its write failed and the answer was served anyway. */
        FAILED;

        static Stored at(StoreLevel level) {
            return switch (level) {
                case FULL -> FULL;
                case ANSWERS_ONLY -> ANSWERS_ONLY;
                case NONE -> NONE;
            };
        }

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        boolean kept() {
            return this == FULL || this == ANSWERS_ONLY;
        }
    }

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
    private final DecisionRecords records;
    private final Clock clock;
    private final DecisionMetrics metrics;
    private final Heads heads;
    private final ExecutorService background = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("arbor-decision-", 0).factory());
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    /** Set while the server stops: work cut short then is left as it stands, for the next start to recover. */
    private volatile boolean closing;

    public DecisionService(
            HistoryStore store,
            String serverInstance,
            Planner planner,
            ModelRuntime runtime,
            Heads heads,
            StudioFiles files,
            Clock clock,
            MeterRegistry meters) {
        this.store = requireNonNull(store, "store");
        this.history = new GroupCommit(store, serverInstance);
        this.planner = requireNonNull(planner, "planner");
        this.runtime = requireNonNull(runtime, "runtime");
        this.heads = requireNonNull(heads, "heads");
        this.records = new DecisionRecords(files);
        this.clock = requireNonNull(clock, "clock");
        this.metrics = new DecisionMetrics(requireNonNull(meters, "meters"));
    }

    public Plan plan(DecisionRequest request, Planner.Purpose purpose) {
        try (Traced span = DecisionSpans.planning()) {
            try {
                Plan plan = planner.plan(request, purpose);
                DecisionSpans.planned(span, plan);
                return plan;
            } catch (ApiException e) {
                DecisionSpans.failed(span, e);
                throw e;
            }
        }
    }

    /**
     * Runs a checked decision now, or queues it when it asks for the background.
     *
     * @param receivedNanos when the request arrived ({@link System#nanoTime()}), which its total time counts from
     */
    public Outcome decide(Plan plan, Source source, long receivedNanos) {
        return decide(plan, source, receivedNanos, Optional.empty());
    }

    /**
     * {@link #decide(Plan, Source, long)} answered by a deployment's replicas when given, instead of the plan's model's
     * worker on this server: for the single-request format, whose decisions are never queued.
     */
    public Outcome decide(Plan plan, Source source, long receivedNanos, Optional<DeployedReplicas> replicas) {
        String id = Ids.next("dec");
        try (Traced _ = DecisionSpans.decision(id, plan)) {
            return decide(plan, source, receivedNanos, replicas, id);
        }
    }

    private Outcome decide(
            Plan plan, Source source, long receivedNanos, Optional<DeployedReplicas> replicas, String id) {
        long created = clock.millis();
        // worked out once: keeping media makes files, which a second pass would make again
        Optional<DecisionInput> input =
                plan.store() == StoreLevel.FULL ? Optional.of(records.input(plan, plan.keepMedia())) : Optional.empty();
        if (plan.background()) {
            return queue(plan, source, id, created, input);
        }
        // counted in flight from here to the end, so that history's writer knows when waiting for company pays
        try (var _ = plan.store() == StoreLevel.NONE ? GroupCommit.NOT_KEPT : history.announce()) {
            DecisionRecords.Ran ran;
            try {
                ran = ask(plan, 0, receivedNanos, replicas, () -> {});
            } catch (ApiException failure) {
                metrics.failed(plan, failure.code(), receivedNanos);
                throw failed(plan, source, id, created, input, failure);
            }
            metrics.completed(plan, receivedNanos);
            return complete(plan, source, id, created, input, ran);
        }
    }

    private DecisionRecords.Ran ask(
            Plan plan, double queueMillis, long startedNanos, Optional<DeployedReplicas> replicas, Runnable atModel) {
        try (Traced span = DecisionSpans.model(plan, replicas.isPresent())) {
            try {
                DecisionRecords.Ran ran = askModel(plan, queueMillis, startedNanos, replicas, atModel);
                span.with("gen_ai.usage.input_tokens", ran.inputTokens());
                return ran;
            } catch (ApiException e) {
                DecisionSpans.failed(span, e);
                throw e;
            }
        }
    }

    private DecisionRecords.Ran askModel(
            Plan plan, double queueMillis, long startedNanos, Optional<DeployedReplicas> replicas, Runnable atModel) {
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
        // heads read the model's embedding: a deployment's replicas give it when their engine embeds
        Map<Question, String> fitted = replicas.isPresent() && !replicas.get().embeds() ? Map.of() : fittedHeads(plan);
        var answeredByHeads = new HashSet<String>();
        fitted.keySet().forEach(question -> answeredByHeads.addAll(primitiveKeys(question)));
        for (Scoring.Question question : plan.primitives()) {
            if (answeredByHeads.contains(question.key())) {
                continue;
            }
            if (question.options().size() == 1) {
                probabilities.put(question.key(), List.of(1.0)); // one option needs no model
            } else {
                toAsk.add(question);
            }
        }
        long[] atModelNanos = {started};
        int tokens = 0;
        if (!fitted.isEmpty()) {
            atModel.run();
            atModelNanos[0] = System.nanoTime();
            List<String> situation = List.of(plan.situation());
            var embedded = replicas.isPresent()
                    ? replicas.get().embed(situation)
                    : runtime.embed(plan.model().get(), situation);
            tokens = embedded.inputTokens();
            float[] vector = embedded.vectors().getFirst();
            fitted.forEach(
                    (question, id) -> headProbabilities(question, heads.find(id).orElseThrow(), vector)
                            .forEach(probabilities::put));
        }
        if (!toAsk.isEmpty()) {
            var request = new Scoring.Request(
                    plan.situation(),
                    plan.media().stream().map(MediaInput::type).toList(),
                    toAsk);
            boolean reachedAlready = !fitted.isEmpty(); // the heads' embedding reached the model first
            Runnable reached = () -> {
                if (!reachedAlready) {
                    atModel.run();
                    atModelNanos[0] = System.nanoTime();
                }
            };
            Scoring.Answer answer;
            if (replicas.isPresent()) {
                reached.run();
                answer = replicas.get().score(request);
            } else {
                answer = runtime.score(plan.model().get(), request, reached);
            }
            probabilities.putAll(answer.probabilities());
            tokens = answer.inputTokens();
        }
        long answered = System.nanoTime();
        var heads = new LinkedHashMap<String, String>();
        fitted.forEach((question, id) -> heads.put(question.key(), id));
        Answers.Result answers =
                Answers.of(plan.questions(), probabilities, plan.settings()).fittedBy(heads);
        return new DecisionRecords.Ran(
                answers,
                tokens,
                queueMillis,
                (atModelNanos[0] - started) / 1e6,
                (answered - atModelNanos[0]) / 1e6,
                queueMillis + (System.nanoTime() - startedNanos) / 1e6);
    }

    /**
     * The plan's template questions that a fitted head answers: those whose version names a head for the model in
     * its settings, when the head exists and was fitted on the same options (an extended question is not).
     */
    private Map<Question, String> fittedHeads(Plan plan) {
        if (plan.template().isEmpty() || plan.model().isEmpty()) {
            return Map.of();
        }
        var definition = plan.template().get().definition();
        var fitted = new LinkedHashMap<Question, String>();
        for (Question question : plan.questions()) {
            Optional<String> id = definition.head(plan.model().get(), question.key());
            if (question.origin() == Question.Origin.TEMPLATE && id.isPresent()) {
                heads.find(id.get())
                        .filter(head ->
                                head.type() == question.type() && head.classes().equals(question.optionKeys()))
                        .ifPresent(head -> fitted.put(question, id.get()));
            }
        }
        return fitted;
    }

    /** The primitive keys a question is asked as: its own, or one per option for multi. */
    private static List<String> primitiveKeys(Question question) {
        if (question.type() != QuestionType.MULTI) {
            return List.of(question.key());
        }
        var keys = new ArrayList<String>();
        for (int i = 0; i < question.optionKeys().size(); i++) {
            keys.add(question.key() + Primitives.CHILD + i);
        }
        return keys;
    }

    /** A head's answer as the primitives' probabilities (multi: no, then yes, per option). */
    private static Map<String, List<Double>> headProbabilities(Question question, Head head, float[] vector) {
        Map<String, Double> p = head.probabilities(vector);
        var out = new LinkedHashMap<String, List<Double>>();
        if (question.type() == QuestionType.MULTI) {
            List<String> keys = primitiveKeys(question);
            for (int i = 0; i < keys.size(); i++) {
                double yes = requireNonNull(p.get(question.optionKeys().get(i)), "the head scores every option");
                out.put(keys.get(i), List.of(1 - yes, yes));
            }
        } else {
            out.put(question.key(), question.optionKeys().stream().map(p::get).toList());
        }
        return out;
    }

    private Outcome complete(
            Plan plan, Source source, String id, long created, Optional<DecisionInput> input, DecisionRecords.Ran ran) {
        DecisionRecords.Step step = DecisionRecords.Step.completed(created, clock.millis(), ran);
        var warnings = new ArrayList<>(plan.warnings());
        Decided decided = records.decided(plan, source, id, step);
        Stored stored = Stored.at(plan.store());
        if (plan.store() != StoreLevel.NONE) {
            try (Traced span = DecisionSpans.storing(plan)) {
                try {
                    history.write(records.record(plan, source, step, decided, input));
                } catch (RuntimeException e) {
                    span.failed("store_failed", e.getClass().getSimpleName());
                    stored = storeFailed(plan, id, e, warnings);
                }
            }
        }
        decided = decided.withWarnings(warnings, stored == Stored.FAILED ? StoreLevel.NONE : decided.store());
        return stored.kept()
                ? new Outcome(decided, stored, Optional.of(id), input)
                : new Outcome(decided, stored, Optional.empty(), Optional.empty());
    }

    /** {@code serve}: the answer goes out with a warning; {@code fail}: 503 {@code store_failed}. */
    private static Stored storeFailed(Plan plan, String id, RuntimeException cause, List<Warning> warnings) {
        LOG.warn("decision {} could not be saved to history: {}", id, cause.toString());
        if (plan.failOnStoreError()) {
            throw ApiException.of(
                    ErrorCode.STORE_FAILED,
                    "The decision was made but could not be saved to "
                            + "history, and on_store_error is fail; try again.");
        }
        warnings.add(new Warning(
                WarningCode.HISTORY_WRITE_FAILED,
                "The answer is right, but it could not be " + "saved to history.",
                null));
        return Stored.FAILED;
    }

    /** Stores a decision that failed at the model (when history keeps it) and returns the error to send. */
    private ApiException failed(
            Plan plan, Source source, String id, long created, Optional<DecisionInput> input, ApiException failure) {
        if (plan.store() == StoreLevel.NONE) {
            return failure;
        }
        DecisionRecords.Step step = DecisionRecords.Step.failed(created, clock.millis(), failure);
        try {
            history.write(records.record(plan, source, step, records.decided(plan, source, id, step), input));
            return failure.withField("decision_id", id);
        } catch (RuntimeException e) {
            LOG.warn("failed decision {} could not be saved to history: {}", id, e.toString());
            return failure;
        }
    }

    // ---- background

    private Outcome queue(Plan plan, Source source, String id, long created, Optional<DecisionInput> input) {
        DecisionRecords.Step step = DecisionRecords.Step.queued(created);
        Decided queued = records.decided(plan, source, id, step);
        history.write(records.record(plan, source, step, queued, input));
        var run = new Running(plan, System.nanoTime(), new AtomicReference<>(), new AtomicReference<>(Phase.WAITING));
        running.put(id, run); // before it may start, so that a cancel always finds it
        // the decision's span goes with it: the model call and the write are its children, in the request's trace
        background.execute(Propagation.carried(() -> {
            run.thread().set(Thread.currentThread());
            try {
                runInBackground(plan, source, queued, created, input, run);
            } catch (RuntimeException e) {
                LOG.error("background decision {} could not be recorded", id, e);
            } finally {
                running.remove(id);
            }
        }));
        return new Outcome(queued, Stored.at(plan.store()), Optional.of(id), input);
    }

    private void runInBackground(
            Plan plan, Source source, Decided queued, long created, Optional<DecisionInput> input, Running run) {
        String id = queued.id();
        AtomicReference<Phase> phase = run.phase();
        Decided inProgress = queued.withStatus(DecisionStatus.IN_PROGRESS, Optional.empty(), Optional.empty());
        if (phase.get() == Phase.CANCELLED
                || !store.transition(
                        id, List.of(DecisionStatus.QUEUED), DecisionStatus.IN_PROGRESS, inProgress, clock.millis())) {
            return;
        }
        double queueMillis = clock.millis() - created;
        try {
            DecisionRecords.Ran ran = ask(plan, queueMillis, System.nanoTime(), Optional.empty(), () -> {
                if (!phase.compareAndSet(Phase.WAITING, Phase.AT_MODEL)) {
                    throw new CancellationException();
                }
            });
            DecisionRecords.Step step = DecisionRecords.Step.completed(created, clock.millis(), ran);
            try (Traced _ = DecisionSpans.storing(plan)) {
                store.finish(records.record(plan, source, step, records.decided(plan, source, id, step), input));
            }
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
                                "The decision failed unexpectedly ("
                                        + e.getClass().getSimpleName() + "); the server log " + "has the details."));
                metrics.failed(plan, ErrorCode.INTERNAL_ERROR, run.queuedNanos());
            }
        }
    }

    private void finishFailed(
            Plan plan, Source source, String id, long created, Optional<DecisionInput> input, ApiException failure) {
        DecisionRecords.Step step = DecisionRecords.Step.failed(created, clock.millis(), failure);
        store.finish(records.record(plan, source, step, records.decided(plan, source, id, step), input));
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
    public StoredDecision cancel(String id) {
        StoredDecision decision = store.find(id).orElseThrow(() -> DecisionView.notFound(id));
        Running run = running.get(id);
        if (decision.finished() || (run != null && !run.phase().compareAndSet(Phase.WAITING, Phase.CANCELLED))) {
            throw ApiException.of(
                    ErrorCode.DECISION_FINISHED,
                    decision.finished()
                            ? "Decision " + id + " is " + decision.status().wire()
                                    + "; only a queued decision or one waiting for its model can be cancelled."
                            : "Decision " + id + " is with the model and finishes in a moment; it can no longer be "
                                    + "cancelled.");
        }
        long now = clock.millis();
        Decided body =
                decision.decided().withStatus(DecisionStatus.CANCELLED, Optional.of(now / 1000), Optional.empty());
        if (!store.transition(id, DecisionStatus.UNFINISHED, DecisionStatus.CANCELLED, body, now)) {
            throw ApiException.of(ErrorCode.DECISION_FINISHED, "Decision " + id + " finished meanwhile.");
        }
        if (run != null) {
            metrics.cancelled(run.plan(), run.queuedNanos());
            if (run.thread().get() != null) {
                run.thread().get().interrupt();
            }
        }
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }

    /**
     * What history keeps of a decision's input (see {@link DecisionRecords#input}), without keeping media: what a
     * preview shows, and what a decision shows of its input when history did not keep it.
     */
    public DecisionInput input(Plan plan) {
        return records.input(plan, false);
    }

    /** Stops taking background work; what runs is abandoned and recovered as failed at the next start. */
    @Override
    public void close() {
        closing = true;
        background.shutdownNow();
    }
}
