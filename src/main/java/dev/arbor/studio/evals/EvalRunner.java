package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.decisions.Decisions;
import dev.arbor.studio.history.AppliedSettings;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.Labels;
import dev.arbor.studio.running.Source;
import dev.arbor.studio.work.WorkError;
import dev.arbor.studio.work.WorkStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs evals in the background, one item at a time per target, each through the real decision path (surface
 * {@code eval}, the eval's id as its request id), then measures the results. An eval may be cancelled at any time; a
 * server that stops leaves its evals as they stand, for the next start to fail.
 */
final class EvalRunner implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EvalRunner.class);
    static final String SURFACE = "eval";
    /** Items recorded together: fewer writes, and progress still moves often. */
    private static final int BATCH = 20;

    /**
     * One target as it runs.
     *
     * @param body the decision body every item's input is added to: template version or questions, model, store
     */
    record Target(int index, ObjectNode body, ObjectNode json) {}

    /** An eval ready to run: its targets, its items, the questions it measures and its error budget. */
    record Job(String id, List<Target> targets, List<DataSets.Item> items, List<String> questions, double budget) {
        Job {
            targets = List.copyOf(targets);
            items = List.copyOf(items);
            questions = List.copyOf(questions);
        }
    }

    private record Running(AtomicBoolean cancelled, AtomicReference<Thread> thread) {}

    private final EvalStore store;
    private final Decisions decisions;
    private final Clock clock;
    private final ExecutorService background = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("arbor-eval-", 0).factory());
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private volatile boolean closing;

    EvalRunner(EvalStore store, Decisions decisions, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.decisions = requireNonNull(decisions, "decisions");
        this.clock = requireNonNull(clock, "clock");
    }

    void submit(Job job) {
        var run = new Running(new AtomicBoolean(), new AtomicReference<>());
        running.put(job.id(), run); // before it may start, so that a cancel always finds it
        background.execute(() -> {
            run.thread().set(Thread.currentThread());
            try {
                run(job, run.cancelled());
            } catch (RuntimeException e) {
                if (!closing && !run.cancelled().get()) {
                    LOG.error("eval {} failed", job.id(), e);
                    store.finish(
                            job.id(),
                            WorkStatus.FAILED,
                            Optional.empty(),
                            Optional.of(WorkError.of(
                                    ErrorCode.INTERNAL_ERROR,
                                    "The eval failed unexpectedly ("
                                            + e.getClass().getSimpleName() + "); the server log has the details.")),
                            clock.millis());
                }
            } finally {
                running.remove(job.id());
            }
        });
    }

    /** Stops an eval that runs here; the caller has recorded it cancelled. */
    void cancel(String id) {
        Running run = running.get(id);
        if (run != null) {
            run.cancelled().set(true);
            Optional.ofNullable(run.thread().get()).ifPresent(Thread::interrupt);
        }
    }

    private void run(Job job, AtomicBoolean cancelled) {
        if (!store.start(job.id(), clock.millis())) {
            return; // cancelled while queued
        }
        int done = 0;
        int failed = 0;
        Optional<ObjectNode> firstError = Optional.empty();
        var pending = new ArrayList<EvalStore.Item>();
        for (Target target : job.targets()) {
            for (int position = 0; position < job.items().size(); position++) {
                if (cancelled.get() || closing) {
                    return;
                }
                EvalStore.Item item = decide(job, target, position, job.items().get(position));
                if (cancelled.get() || closing) {
                    return; // what it answered while being stopped is not kept
                }
                pending.add(item);
                done++;
                if (item.answers().isEmpty()) {
                    failed++;
                    firstError = firstError.or(item::error);
                }
                if (pending.size() >= BATCH
                        || done == job.items().size() * job.targets().size()) {
                    store.record(job.id(), pending, done, failed);
                    pending.clear();
                }
            }
        }
        if (failed == done) {
            ObjectNode error = firstError.orElseThrow().deepCopy();
            error.put(
                    "message",
                    "Every item failed; the first: " + error.path("message").asText());
            store.finish(job.id(), WorkStatus.FAILED, Optional.empty(), Optional.of(error), clock.millis());
            return;
        }
        List<ObjectNode> targets = job.targets().stream().map(Target::json).toList();
        ObjectNode results = Json.mapper()
                .valueToTree(EvalMetrics.of(targets, job.questions(), store.items(job.id()), job.budget()));
        store.finish(job.id(), WorkStatus.COMPLETED, Optional.of(results), Optional.empty(), clock.millis());
    }

    /** Decides one item on one target; a refused or failed decision is a failed item, not a failed eval. */
    private EvalStore.Item decide(Job job, Target target, int position, DataSets.Item item) {
        ObjectNode body = target.body().deepCopy();
        body.setAll(item.input());
        try {
            Decided decision = decisions.decide(DecisionRequest.parse(body), Source.inProcess(SURFACE, job.id()));
            return new EvalStore.Item(
                    target.index(),
                    position,
                    item.source(),
                    item.split(),
                    decision.kept() ? Optional.of(decision.id()) : Optional.empty(),
                    item.expected(),
                    Optional.of(answers(decision, item.expected(), job.questions())),
                    Optional.empty());
        } catch (ApiException e) {
            ObjectNode error = WorkError.of(e);
            Optional.ofNullable(e.extra().get("decision_id")).ifPresent(id -> error.put("decision_id", id.toString()));
            return failedItem(target, position, item, error);
        } catch (RuntimeException e) {
            if (cancelled(job.id())) {
                throw e;
            }
            LOG.warn("eval {}: item {} failed", job.id(), item.source(), e);
            return failedItem(
                    target,
                    position,
                    item,
                    WorkError.of(
                            ErrorCode.INTERNAL_ERROR,
                            "The decision failed unexpectedly (" + e.getClass().getSimpleName() + ")."));
        }
    }

    private boolean cancelled(String id) {
        Running run = running.get(id);
        return closing || (run != null && run.cancelled().get());
    }

    private static EvalStore.Item failedItem(Target target, int position, DataSets.Item item, ObjectNode error) {
        return new EvalStore.Item(
                target.index(),
                position,
                item.source(),
                item.split(),
                Optional.empty(),
                item.expected(),
                Optional.empty(),
                Optional.of(error));
    }

    /**
     * What the metrics need of a decision, per question measured: the answer, the raw probabilities, the temperature
     * and act threshold it was given with, and the label checked against it (canonical, and whether it was right).
     */
    static ObjectNode answers(Decided decision, ObjectNode expected, List<String> questions) {
        ObjectNode answers = Json.object();
        answers.put("model", decision.model().orElse(null));
        ObjectNode perQuestion = answers.putObject("questions");
        AppliedSettings settings = decision.settings();
        Map<String, Answer> given =
                decision.answered().map(Decided.Answered::answers).orElse(Map.of());
        Map<String, Map<String, Double>> raw =
                decision.answered().map(Decided.Answered::raw).orElse(Map.of());
        for (String question : questions) {
            if (!given.containsKey(question)) {
                continue;
            }
            ObjectNode own = perQuestion.putObject(question);
            own.set("answer", AnswerCodec.write(given.get(question)));
            ObjectNode rawOwn = own.putObject("raw");
            raw.getOrDefault(question, Map.of()).forEach(rawOwn::put);
            own.put("temperature", settings.of(question, "temperature"));
            own.put("act_threshold", settings.of(question, "act_threshold"));
            JsonNode label = expected.get(question);
            if (label == null) {
                continue;
            }
            switch (Labels.check(given.get(question), label)) {
                case Labels.Canonical canonical -> {
                    own.set("label", canonical.value());
                    own.put("correct", Labels.correct(given.get(question), canonical.value()));
                }
                case Labels.Unfit unfit -> own.put("unfit", unfit.why());
            }
        }
        return answers;
    }

    /** Stops taking work; what runs is abandoned and failed at the next start. */
    @Override
    public void close() {
        closing = true;
        background.shutdownNow();
    }
}
