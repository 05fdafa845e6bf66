package dev.arbor.pipelines.runs;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.arbor.pipelines.actions.Outcome;
import dev.arbor.pipelines.actions.StepActions;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.definitions.PipelineParams;
import dev.arbor.pipelines.runs.RunStore.Run;
import dev.arbor.pipelines.runs.RunStore.RunStatus;
import dev.arbor.pipelines.runs.RunStore.StepRun;
import dev.arbor.pipelines.runs.RunStore.StepStatus;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.JobEngine;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs pipelines on db-scheduler, a durable job engine: each step is a scheduled execution in the database, so a
 * run survives restarts and is shared by nodes on one PostgreSQL, and a waiting or retrying step is a row with a due
 * time, not a thread. Our tables hold what the engine does not keep: runs, steps, outputs and events.
 *
 * <p>Every step execution may be repeated (a node dying mid-step, a message delivered twice), so each looks at the
 * stored step first: a step that has ended only makes sure the steps after it are scheduled, and a run that has
 * ended, or was retried since, is left alone. Changes to a run are made under its row lock ({@link RunStore}).
 */
public final class RunEngine implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RunEngine.class);
    private static final String STEP_TASK = "pipeline-step";
    private static final String DEADLINE_TASK = "pipeline-run-deadline";
    /** The engine's own table (migration V48): its executions are steps and deadlines, nothing else. */
    private static final String JOB_TABLE = "pipeline_jobs";
    /** A step attempt's time limit when the step sets none. */
    static final int DEFAULT_STEP_TIMEOUT_SECONDS = 3_600;
    /** Steps running at once on this node, over all runs. */
    static final int PARALLEL_STEPS = 16;

    /** The data of one step's execution; a step of an earlier generation (before a retry) is stale. */
    record StepTask(String runId, String stepId, int generation) {
        String instance() {
            return runId + "." + stepId + "." + generation;
        }
    }

    record DeadlineTask(String runId, int generation) {
        String instance() {
            return runId + "." + generation;
        }
    }

    /** A change asked of a run in a state that does not allow it (cancel a finished run, retry one not failed). */
    public static final class RunStateException extends RuntimeException {
        final RunStatus status;

        RunStateException(RunStatus status) {
            super("the run is " + status.json());
            this.status = status;
        }
    }

    private final RunStore store;
    private final ActionCatalog catalog;
    private final Expressions expressions;
    private final StepActions actions;
    private final Clock clock;
    private final CustomTask<StepTask> stepTask;
    private final OneTimeTask<DeadlineTask> deadlineTask;
    private final JobEngine engine;
    private final ExecutorService attempts = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, Set<Future<?>>> inFlight = new ConcurrentHashMap<>();
    /** What this node keeps of the runs it works on, by run id: their definitions, read and checked once. */
    private final Map<String, KeptRun> kept = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, KeptRun> eldest) {
            return size() > 256;
        }
    });

    private record KeptRun(PipelineDefinition definition, RunStore.Kept stored) {}

    private final Database database;
    private final Object signal = new Object();
    private volatile boolean started;

    public RunEngine(
            Database database,
            RunStore store,
            ActionCatalog catalog,
            Expressions expressions,
            StepActions actions,
            Clock clock,
            RunMetrics metrics) {
        this.database = requireNonNull(database, "database");
        this.store = requireNonNull(store, "store");
        this.catalog = requireNonNull(catalog, "catalog");
        this.expressions = requireNonNull(expressions, "expressions");
        this.actions = requireNonNull(actions, "actions");
        this.clock = requireNonNull(clock, "clock");
        metrics.watchExecuting(inFlight);
        this.stepTask = Tasks.custom(STEP_TASK, StepTask.class)
                .onFailure(FailureHandler.<StepTask>maxRetries(8)
                        .withBackoff(Duration.ofSeconds(1), 2)
                        .thenRemove(complete -> LOG.error(
                                "pipeline step {} failed in the engine 8 times; it is " + "given up",
                                complete.getExecution().taskInstance.getId())))
                .execute(this::executeStep);
        this.deadlineTask = Tasks.oneTime(DEADLINE_TASK, DeadlineTask.class)
                .execute((instance, context) ->
                        timeOut(instance.getData().runId(), instance.getData().generation()));
        this.engine = new JobEngine(
                database, JOB_TABLE, PARALLEL_STEPS, new JsonTaskData(), clock, List.of(stepTask, deadlineTask));
    }

    /**
     * Starts executing, and picks up the runs a stopped server left unfinished. A database a newer release has
     * migrated is read-only here: its runs can be read, and nothing runs.
     */
    public void start() {
        if (database.readOnly()) {
            LOG.warn("the database is read-only for this release: pipelines do not run");
            return;
        }
        started = true;
        engine.start();
        for (String runId : store.activeRunIds()) {
            try {
                resume(runId);
            } catch (RuntimeException e) {
                LOG.error("run {} could not be resumed", runId, e);
            }
        }
    }

    /**
     * Starts a run of a stored pipeline; it is queued at once and its first steps begin soon after. Empty when what
     * it is started {@code once} for (a schedule's firing, a webhook call) has started a run already.
     */
    public Optional<Run> start(
            RunnablePipelines.Pipeline pipeline,
            ObjectNode params,
            ObjectNode trigger,
            int timeoutSeconds,
            Optional<RunStore.Once> once) {
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        long now = clock.millis();
        var steps = new ArrayList<StepRun>();
        for (int i = 0; i < definition.steps().size(); i++) {
            steps.add(new StepRun(
                    definition.steps().get(i).id(),
                    i,
                    StepStatus.PENDING,
                    0,
                    Optional.empty(),
                    Optional.empty(),
                    OptionalLong.empty(),
                    OptionalLong.empty(),
                    OptionalLong.empty(),
                    OptionalLong.empty()));
        }
        var run = new Run(
                Ids.next("run"),
                pipeline.id(),
                pipeline.version(),
                pipeline.definition(),
                params,
                trigger,
                RunStatus.QUEUED,
                1,
                Optional.empty(),
                Optional.empty(),
                timeoutSeconds,
                now + timeoutSeconds * 1000L,
                now,
                OptionalLong.empty(),
                OptionalLong.empty(),
                steps);
        if (!store.create(run, once)) {
            return Optional.empty();
        }
        kept.put(run.id(), new KeptRun(definition, new RunStore.Kept(run.definition())));
        scheduleDeadline(run.id(), run.generation(), run.deadlineAt());
        schedule(
                run.id(),
                run.generation(),
                definition.steps().stream()
                        .filter(step -> step.dependsOn().isEmpty())
                        .map(PipelineDefinition.Step::id)
                        .toList());
        signal();
        return Optional.of(run);
    }

    /** Cancels a run that has not ended: its open steps end cancelled, and steps running here are interrupted. */
    public Run cancel(String runId) {
        Optional<RunStatus> refused = store.locked(runId, tx -> {
                    Run run = tx.run();
                    if (!run.status().active()) {
                        return Optional.of(run.status());
                    }
                    tx.endOpenSteps(StepStatus.CANCELLED, "The run was cancelled.");
                    tx.endRun(RunStatus.CANCELLED, Optional.empty(), Optional.empty());
                    tx.runEvent("cancelled", "The run was cancelled.");
                    return Optional.<RunStatus>empty();
                })
                .orElseThrow();
        if (refused.isPresent()) {
            throw new RunStateException(refused.get());
        }
        ended(runId);
        return store.find(runId).orElseThrow();
    }

    /**
     * Runs a failed run again from where it failed: its failed and cancelled steps start over, completed ones keep
     * their outputs and do not run again.
     */
    Run retry(String runId) {
        var ready = new ArrayList<String>();
        Optional<RunStatus> refused = store.locked(runId, tx -> {
                    Run run = tx.run();
                    if (run.status() != RunStatus.FAILED) {
                        return Optional.of(run.status());
                    }
                    int generation = run.generation() + 1;
                    tx.reopen(generation, tx.now() + run.timeoutSeconds() * 1000L);
                    String again = run.steps().stream()
                            .filter(s -> s.status() == StepStatus.FAILED || s.status() == StepStatus.CANCELLED)
                            .map(StepRun::id)
                            .collect(Collectors.joining(", "));
                    tx.runEvent("running", "The run was retried; these steps start over: " + again + ".");
                    ready.addAll(advance(tx, definition(run)));
                    return Optional.<RunStatus>empty();
                })
                .orElseThrow();
        if (refused.isPresent()) {
            throw new RunStateException(refused.get());
        }
        Run run = store.find(runId).orElseThrow();
        scheduleDeadline(runId, run.generation(), run.deadlineAt());
        schedule(runId, run.generation(), ready);
        signal();
        return run;
    }

    /** Waits up to {@code millis} for any run to change here; another node's changes are seen by polling. */
    void awaitChange(long millis) throws InterruptedException {
        synchronized (signal) {
            signal.wait(millis);
        }
    }

    private void signal() {
        synchronized (signal) {
            signal.notifyAll();
        }
    }

    private CompletionHandler<StepTask> executeStep(TaskInstance<StepTask> instance, ExecutionContext context) {
        StepTask task = instance.getData();
        Next next = runStep(task);
        runHere(task, next.runHere());
        signal();
        if (next.parkedUntil().isPresent()) {
            Instant due = Instant.ofEpochMilli(next.parkedUntil().getAsLong());
            return (complete, operations) -> operations.reschedule(complete, due);
        }
        return new CompletionHandler.OnCompleteRemove<>();
    }

    /**
     * What follows one execution of a step: when it is to be asked again (it parked: waiting or retrying), and the
     * inline steps it made ready, to run on this thread.
     */
    private record Next(OptionalLong parkedUntil, List<String> runHere) {
        static final Next NOTHING = new Next(OptionalLong.empty(), List.of());

        static Next parked(long until) {
            return new Next(OptionalLong.of(until), List.of());
        }
    }

    /**
     * Runs the inline steps an execution made ready, and those they make ready in turn, on the execution's thread
     * instead of a round through the engine (an insert, a pick and a delete each). The execution's row stays in the
     * engine until they are done, so a server that stops meanwhile leaves it to run again, and its repeat schedules
     * whatever is ready then. A chained step that parks (a retry) gets an execution of its own.
     */
    private void runHere(StepTask from, List<String> stepIds) {
        var queue = new ArrayDeque<>(stepIds);
        while (!queue.isEmpty()) {
            var task = new StepTask(from.runId(), queue.poll(), from.generation());
            Next next = runStep(task);
            if (next.parkedUntil().isPresent()) {
                engine.client()
                        .scheduleIfNotExists(
                                stepTask.instance(task.instance(), task),
                                Instant.ofEpochMilli(next.parkedUntil().getAsLong()));
            }
            queue.addAll(next.runHere());
            signal();
        }
    }

    /** One execution of a step. */
    private Next runStep(StepTask task) {
        KeptRun known = kept.get(task.runId());
        Optional<Run> found = known == null ? store.find(task.runId()) : store.find(task.runId(), known.stored());
        if (found.isEmpty()
                || found.get().generation() != task.generation()
                || !found.get().status().active()) {
            return Next.NOTHING;
        }
        Run run = found.get();
        StepRun state = run.step(task.stepId()).orElseThrow();
        PipelineDefinition definition = definition(run);
        if (state.status().finished()) {
            // a repeat of an execution that ended the step: what follows it may not have been scheduled
            schedule(
                    task.runId(),
                    task.generation(),
                    store.whileActive(task.runId(), task.generation(), tx -> advance(tx, definition))
                            .orElse(List.of()));
            return Next.NOTHING;
        }
        long now = clock.millis();
        if (now >= run.deadlineAt()) {
            timeOut(task.runId(), task.generation());
            return Next.NOTHING;
        }
        PipelineDefinition.Step step = definition.step(task.stepId());
        Map<String, Object> scope = scope(run, now);
        if (state.status() == StepStatus.PENDING && step.condition().isPresent()) {
            try {
                if (!expressions.holds(step.condition().get(), scope)) {
                    return new Next(
                            OptionalLong.empty(),
                            end(
                                    task,
                                    definition,
                                    Optional.empty(),
                                    StepStatus.SKIPPED,
                                    Optional.empty(),
                                    Optional.empty(),
                                    Set.of(),
                                    "Skipped: its condition is false."));
                }
            } catch (Expressions.ExpressionException e) {
                return failed(
                        task,
                        definition,
                        Optional.empty(),
                        1,
                        new Outcome.Failed(
                                "condition_error", Objects.requireNonNullElse(e.getMessage(), e.toString()), false));
            }
        }
        int attempt = state.status() == StepStatus.WAITING ? Math.max(1, state.attempts()) : state.attempts() + 1;
        var start = new Start(attempt, state.status(), run.status());
        // an inline step is marked running in the commit that ends it; any other in a commit of its own first, so
        // that what it does outside the run is seen to have begun
        Optional<Start> startsWithItsEnd = StepActions.inline(step) ? Optional.of(start) : Optional.empty();
        if (startsWithItsEnd.isEmpty()
                && !store.whileActive(task.runId(), task.generation(), tx -> begin(tx, step, start))
                        .orElse(false)) {
            return Next.NOTHING;
        }
        long startedAt = state.startedAt().orElse(now);
        Outcome outcome = attempt(task, step, run, scope, now, startedAt, state.waitDeadlineAt());
        return switch (outcome) {
            case Outcome.Done done ->
                new Next(
                        OptionalLong.empty(),
                        end(
                                task,
                                definition,
                                startsWithItsEnd,
                                StepStatus.COMPLETED,
                                Optional.of(done.outputs()),
                                Optional.empty(),
                                done.skipped(),
                                "Completed."));
            case Outcome.Waiting waiting -> {
                boolean parked = store.whileActive(task.runId(), task.generation(), tx -> {
                            if (startsWithItsEnd.isPresent() && !begin(tx, step, start)) {
                                return false;
                            }
                            if (state.status() != StepStatus.WAITING) {
                                tx.stepEvent(task.stepId(), "waiting", "Waiting for its condition.");
                            }
                            tx.parkStep(
                                    task.stepId(),
                                    StepStatus.WAITING,
                                    waiting.dueAt(),
                                    OptionalLong.of(waiting.deadlineAt()),
                                    Optional.empty());
                            return true;
                        })
                        .orElse(false);
                yield parked ? Next.parked(waiting.dueAt()) : Next.NOTHING;
            }
            case Outcome.Failed failed -> failed(task, definition, startsWithItsEnd, attempt, failed);
        };
    }

    /**
     * An attempt of a step about to be marked running: its number, the status the step had before, and the run's
     * status when the step's execution read it (a run seen running is not marked running again).
     */
    private record Start(int attempt, StepStatus before, RunStatus runWas) {}

    /** Marks a step running for an attempt (and its run, at its first step); false when the step has ended. */
    private static boolean begin(RunStore.Transition tx, PipelineDefinition.Step step, Start start) {
        if (!tx.startStep(step.id(), start.attempt())) {
            return false;
        }
        if (start.runWas() == RunStatus.QUEUED && tx.runStarted()) {
            tx.runEvent("running", "The run started.");
        }
        if (start.before() != StepStatus.WAITING) {
            int of = step.retry().map(PipelineDefinition.Retry::maxAttempts).orElse(1);
            tx.stepEvent(
                    step.id(),
                    "running",
                    "Started" + (of > 1 ? ", attempt " + start.attempt() + " of " + of : "")
                            + (start.before() == StepStatus.RUNNING
                                    ? " (again: the attempt before was cut off when a server stopped)"
                                    : "")
                            + ".");
        }
        return true;
    }

    private Outcome attempt(
            StepTask task,
            PipelineDefinition.Step step,
            Run run,
            Map<String, Object> scope,
            long now,
            long startedAt,
            OptionalLong waitDeadline) {
        ActionCatalog.Action action = catalog.find(step.action()).orElseThrow();
        ObjectNode params;
        try {
            params = ActionCatalog.forRun(action, (ObjectNode) expressions.render(step.params(), scope));
        } catch (Expressions.ExpressionException e) {
            return new Outcome.Failed(
                    "template_error", Objects.requireNonNullElse(e.getMessage(), e.toString()), false);
        }
        var problems = new Problems();
        catalog.check(action, params, "params", problems, PipelineParams.RULES);
        if (!problems.isEmpty()) {
            return new Outcome.Failed(
                    "invalid_params",
                    "Once its templates were worked out, the step's params are "
                            + "not valid: "
                            + problems.list().stream().map(Problem::message).collect(Collectors.joining(" ")),
                    false);
        }
        var completedOutputs = new HashMap<String, JsonNode>();
        run.steps().stream()
                .filter(s -> s.status() == StepStatus.COMPLETED)
                .forEach(s -> completedOutputs.put(s.id(), s.outputs().orElse(Json.object())));
        var call = new StepActions.StepCall(
                task.runId(),
                step,
                params,
                scope,
                completedOutputs,
                now,
                startedAt,
                waitDeadline.isPresent() ? Optional.of(waitDeadline.getAsLong()) : Optional.empty(),
                (level, message) -> store.whileActive(task.runId(), task.generation(), tx -> {
                    tx.logEvent(task.stepId(), level, message);
                    return null;
                }));
        if (StepActions.inline(step)) {
            // microseconds of work: a hand-off to a thread with a time limit would cost more than the step
            try {
                return actions.run(call);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while step " + step.id() + " ran", e);
            } catch (RuntimeException e) {
                LOG.warn("pipeline step {} of run {} failed", step.id(), task.runId(), e);
                return new Outcome.Failed("action_error", String.valueOf(e), true);
            }
        }
        int timeout = step.timeoutSeconds().orElse(DEFAULT_STEP_TIMEOUT_SECONDS);
        Future<Outcome> future = attempts.submit(() -> actions.run(call));
        inFlight.compute(task.runId(), (id, running) -> {
            Set<Future<?>> all = running == null ? ConcurrentHashMap.newKeySet() : running;
            all.add(future);
            return all;
        });
        try {
            return future.get(timeout, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            return new Outcome.Failed(
                    "step_timed_out", "The attempt took longer than its " + timeout + " seconds.", true);
        } catch (CancellationException e) {
            return new Outcome.Failed("cancelled", "The run ended while the step ran.", false);
        } catch (ExecutionException e) {
            LOG.warn("pipeline step {} of run {} failed", step.id(), task.runId(), e.getCause());
            return new Outcome.Failed("action_error", String.valueOf(e.getCause()), true);
        } catch (InterruptedException e) {
            future.cancel(true);
            Thread.currentThread().interrupt();
            // the server is stopping: the step's execution stays in the engine and runs again after the restart
            throw new IllegalStateException("interrupted while step " + step.id() + " ran", e);
        } finally {
            inFlight.computeIfPresent(task.runId(), (id, running) -> {
                running.remove(future);
                return running.isEmpty() ? null : running;
            });
        }
    }

    private Next failed(
            StepTask task, PipelineDefinition definition, Optional<Start> start, int attempt, Outcome.Failed failure) {
        PipelineDefinition.Step step = definition.step(task.stepId());
        ObjectNode error = Json.object().put("code", failure.code()).put("message", failure.message());
        int of = step.retry().map(PipelineDefinition.Retry::maxAttempts).orElse(1);
        if (failure.retryable() && attempt < of) {
            PipelineDefinition.Retry retry = step.retry().orElseThrow();
            long delay = (long) Math.min(
                    retry.maxBackoffSeconds() * 1000.0,
                    retry.backoffSeconds() * 1000.0 * Math.pow(retry.backoffMultiplier(), attempt - 1));
            long due = clock.millis() + delay;
            boolean parked = store.whileActive(task.runId(), task.generation(), tx -> {
                        if (start.isPresent() && !begin(tx, step, start.get())) {
                            return false;
                        }
                        tx.parkStep(task.stepId(), StepStatus.RETRYING, due, OptionalLong.empty(), Optional.of(error));
                        tx.stepEvent(
                                task.stepId(),
                                "retrying",
                                "Attempt " + attempt + " of " + of + " failed (" + failure.code() + ": "
                                        + failure.message() + "); the next one in " + delay / 1000.0 + " s.");
                        return true;
                    })
                    .orElse(false);
            return parked ? Next.parked(due) : Next.NOTHING;
        }
        return new Next(
                OptionalLong.empty(),
                end(
                        task,
                        definition,
                        start,
                        StepStatus.FAILED,
                        Optional.empty(),
                        Optional.of(error),
                        Set.of(),
                        "Failed: " + failure.code() + ": " + failure.message()));
    }

    /** What ending a step did to its run: the steps it made ready, and whether the run ended with it. */
    private record Moved(List<String> ready, boolean runEnded) {
        static final Moved NOTHING = new Moved(List.of(), false);
    }

    /**
     * Ends a step and moves the run on in one transaction (marking the step running first when it {@code start}s
     * with its end): a failure that does not continue fails the run; steps a branch turned away from are skipped;
     * the run ends when every step has. The steps now ready are scheduled, except inline ones, which are returned to
     * run here.
     */
    private List<String> end(
            StepTask task,
            PipelineDefinition definition,
            Optional<Start> start,
            StepStatus status,
            Optional<JsonNode> outputs,
            Optional<JsonNode> error,
            Set<String> skipped,
            String message) {
        Moved moved = store.whileActive(task.runId(), task.generation(), tx -> {
                    if (start.isPresent() && !begin(tx, definition.step(task.stepId()), start.get())) {
                        return Moved.NOTHING;
                    }
                    if (!tx.endStep(task.stepId(), status, outputs, error)) {
                        return Moved.NOTHING;
                    }
                    tx.stepEvent(task.stepId(), status.json(), message);
                    if (status == StepStatus.FAILED
                            && definition.step(task.stepId()).onFailure() == PipelineDefinition.OnFailure.FAIL) {
                        ObjectNode runError =
                                ((ObjectNode) error.orElseThrow()).deepCopy().put("step_id", task.stepId());
                        failRun(tx, runError, "The run failed at step " + task.stepId() + ".");
                        return new Moved(List.of(), true);
                    }
                    for (String target : skipped) {
                        if (tx.endStep(target, StepStatus.SKIPPED, Optional.empty(), Optional.empty())) {
                            tx.stepEvent(
                                    target,
                                    "skipped",
                                    "Skipped: branch step " + task.stepId() + " did not lead to it.");
                        }
                    }
                    var endedNow = new HashSet<String>(skipped);
                    endedNow.add(task.stepId());
                    List<String> ready = advance(tx, definition, endedNow);
                    // only the steps this transaction made ready: each is made ready by one, so one worker takes it
                    return new Moved(
                            ready.stream()
                                    .filter(id -> definition.step(id).dependsOn().stream()
                                            .anyMatch(endedNow::contains))
                                    .toList(),
                            tx.endsRun());
                })
                .orElse(Moved.NOTHING);
        if (moved.runEnded()) {
            ended(task.runId());
        }
        var here = new ArrayList<String>();
        var elsewhere = new ArrayList<String>();
        for (String stepId : moved.ready()) {
            (StepActions.inline(definition.step(stepId)) ? here : elsewhere).add(stepId);
        }
        schedule(task.runId(), task.generation(), elsewhere);
        return here;
    }

    /**
     * Skips the steps all of whose dependencies were skipped, returns the pending steps whose dependencies have all
     * ended, and ends the run when every step has. It reads the steps' statuses only: their outputs are read when
     * the run ends.
     */
    private List<String> advance(RunStore.Transition tx, PipelineDefinition definition) {
        return advance(tx, definition, new HashSet<>());
    }

    /** As {@link #advance(RunStore.Transition, PipelineDefinition)}, adding the steps it skips to {@code endedNow}. */
    private List<String> advance(RunStore.Transition tx, PipelineDefinition definition, Set<String> endedNow) {
        var status = new HashMap<>(tx.stepStatuses());
        boolean changed = true;
        while (changed) {
            changed = false;
            for (PipelineDefinition.Step step : definition.steps()) {
                if (status.get(step.id()) == StepStatus.PENDING
                        && !step.dependsOn().isEmpty()
                        && step.dependsOn().stream().allMatch(d -> status.get(d) == StepStatus.SKIPPED)) {
                    tx.endStep(step.id(), StepStatus.SKIPPED, Optional.empty(), Optional.empty());
                    tx.stepEvent(step.id(), "skipped", "Skipped: every step it depends on was skipped.");
                    status.put(step.id(), StepStatus.SKIPPED);
                    endedNow.add(step.id());
                    changed = true;
                }
            }
        }
        if (status.values().stream().allMatch(StepStatus::finished)) {
            complete(tx, definition);
            return List.of();
        }
        return definition.steps().stream()
                .filter(step -> status.get(step.id()) == StepStatus.PENDING
                        && step.dependsOn().stream()
                                .allMatch(d -> requireNonNull(status.get(d)).finished()))
                .map(PipelineDefinition.Step::id)
                .toList();
    }

    private void complete(RunStore.Transition tx, PipelineDefinition definition) {
        Map<String, Object> scope = scope(tx.run(), tx.now());
        ObjectNode outputs = Json.object();
        try {
            definition
                    .outputs()
                    .forEach((name, template) ->
                            outputs.set(name, expressions.render(TextNode.valueOf(template), scope)));
        } catch (Expressions.ExpressionException e) {
            failRun(
                    tx,
                    Json.object().put("code", "output_error").put("message", e.getMessage()),
                    "The run's outputs could not be worked out.");
            return;
        }
        tx.endRun(RunStatus.COMPLETED, Optional.of(outputs), Optional.empty());
        tx.runEvent("completed", "The run completed.");
    }

    private static void failRun(RunStore.Transition tx, ObjectNode error, String message) {
        tx.endOpenSteps(StepStatus.CANCELLED, message);
        tx.endRun(RunStatus.FAILED, Optional.empty(), Optional.of(error));
        tx.runEvent("failed", message + " " + error.path("message").asText());
    }

    private void timeOut(String runId, int generation) {
        boolean timedOut = store.whileActive(runId, generation, tx -> {
                    Run run = tx.run();
                    if (tx.now() < run.deadlineAt()) {
                        return false;
                    }
                    failRun(
                            tx,
                            Json.object()
                                    .put("code", "run_timed_out")
                                    .put(
                                            "message",
                                            "The run took longer than its " + run.timeoutSeconds() + " seconds."),
                            "The run timed out.");
                    return true;
                })
                .orElse(false);
        if (timedOut) {
            ended(runId);
        }
    }

    /**
     * After a run may have ended: interrupts its steps running here and drops its engine work (the steps it
     * cancelled may have been parked, waiting or retrying, in the engine).
     */
    private void ended(String runId) {
        Run after = store.find(runId).orElseThrow();
        if (after.status().active()) {
            return;
        }
        Set<Future<?>> running = inFlight.remove(after.id());
        if (running != null) {
            running.forEach(future -> future.cancel(true));
        }
        for (StepRun step : after.steps()) {
            if (step.status() == StepStatus.CANCELLED) {
                cancelQuietly(stepTask.instanceId(new StepTask(after.id(), step.id(), after.generation()).instance()));
            }
        }
        cancelQuietly(deadlineTask.instanceId(new DeadlineTask(after.id(), after.generation()).instance()));
        kept.remove(after.id());
        signal();
    }

    private void cancelQuietly(com.github.kagkarlsson.scheduler.task.TaskInstanceId id) {
        try {
            engine.client().cancel(id);
        } catch (RuntimeException e) {
            // gone already, or executing now: it will find its run ended and do nothing
        }
    }

    /** Makes sure a run left unfinished by a stopped server goes on: every open step has its execution. */
    private void resume(String runId) {
        Run run = store.find(runId).orElseThrow();
        PipelineDefinition definition = definition(run);
        List<String> ready = store.whileActive(runId, run.generation(), tx -> advance(tx, definition))
                .orElse(List.of());
        schedule(runId, run.generation(), ready);
        for (StepRun step : run.steps()) {
            if (step.status() == StepStatus.RUNNING
                    || step.status() == StepStatus.WAITING
                    || step.status() == StepStatus.RETRYING) {
                engine.client()
                        .scheduleIfNotExists(
                                stepTask.instance(
                                        new StepTask(runId, step.id(), run.generation()).instance(),
                                        new StepTask(runId, step.id(), run.generation())),
                                Instant.ofEpochMilli(step.dueAt().orElse(clock.millis())));
            }
        }
        scheduleDeadline(runId, run.generation(), run.deadlineAt());
    }

    private void schedule(String runId, int generation, Collection<String> stepIds) {
        Instant now = clock.instant();
        for (String stepId : stepIds) {
            var data = new StepTask(runId, stepId, generation);
            engine.client().scheduleIfNotExists(stepTask.instance(data.instance(), data), now);
        }
    }

    private void scheduleDeadline(String runId, int generation, long deadlineAt) {
        var data = new DeadlineTask(runId, generation);
        engine.client()
                .scheduleIfNotExists(deadlineTask.instance(data.instance(), data), Instant.ofEpochMilli(deadlineAt));
    }

    private PipelineDefinition definition(Run run) {
        return kept(run).definition();
    }

    private KeptRun kept(Run run) {
        return kept.computeIfAbsent(
                run.id(),
                id -> new KeptRun(
                        PipelineDefinition.stored(run.definition(), catalog), new RunStore.Kept(run.definition())));
    }

    /**
     * What templates and conditions read: {@code params}, {@code steps.<id>.outputs} (and {@code .status}),
     * {@code event} (what started the run) and {@code now} (seconds since the epoch, for waits on time).
     */
    private static Map<String, Object> scope(Run run, long now) {
        var steps = new HashMap<String, Object>();
        for (StepRun step : run.steps()) {
            steps.put(
                    step.id(),
                    Map.of(
                            "status",
                            step.status().json(),
                            "outputs",
                            step.outputs().map(Expressions::plain).orElse(Map.of())));
        }
        JsonNode event = run.trigger().path("event");
        return Map.of(
                "params",
                Expressions.plain(run.params()),
                "steps",
                steps,
                "event",
                event.isObject() ? Expressions.plain(event) : Map.of(),
                "now",
                now / 1000);
    }

    @Override
    public void close() {
        if (started) {
            engine.stop();
        }
        attempts.shutdownNow();
    }
}
