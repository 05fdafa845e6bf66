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
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.arbor.pipelines.actions.Outcome;
import dev.arbor.pipelines.actions.StepActions;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.definitions.PipelineParams;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.pipelines.runs.store.RunMetrics;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.pipelines.runs.store.RunStore.Run;
import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.pipelines.runs.store.RunStore.StepRun;
import dev.arbor.pipelines.runs.store.RunStore.StepStatus;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.JobEngine;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.tracing.Propagation;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.platform.tracing.Tracing;
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
import java.util.OptionalInt;
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
    /** The action that asks people: handled here, as it waits on the run's own tables. */
    static final String APPROVAL = "approval";
    /** The action that runs another pipeline: handled here, as it starts and waits on runs. */
    static final String RUN_PIPELINE = "run_pipeline";
    /** How many runs deep Run Pipeline steps may start runs (a run's child's child's ... child). */
    static final int MAX_SUB_PIPELINE_DEPTH = 5;
    /** How often a Run Pipeline step that waits looks at the run it started. */
    static final long SUB_PIPELINE_CHECK_MILLIS = 1_000;
    /** A step attempt's time limit when the step sets none. */
    static final int DEFAULT_STEP_TIMEOUT_SECONDS = 3_600;
    /** How often a paused run's deadline looks again whether the run was resumed (its deadline moved on). */
    static final long PAUSED_DEADLINE_CHECK_MILLIS = 60_000;
    /**
     * How often a queued run that waits for room under its pipeline's {@code max_concurrent_runs} looks again. Only a
     * safety net: a run of the pipeline that ends wakes the queued ones at once, on any server sharing the database
     * (their executions are rows of the shared table); this catches a server killed between the two.
     */
    static final long ADMISSION_RECHECK_MILLIS = 10_000;
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
        private final RunStatus status;

        RunStateException(RunStatus status) {
            super("the run is " + status.json());
            this.status = status;
        }

        public RunStatus status() {
            return status;
        }
    }

    private final RunStore store;
    private final ActionCatalog catalog;
    private final Expressions expressions;
    private final StepActions actions;
    private final Clock clock;
    private final CustomTask<StepTask> stepTask;
    private final CustomTask<DeadlineTask> deadlineTask;
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
    private final ApprovalStore approvals;
    private final ApprovalLinks links;
    private final RunnablePipelines pipelines;
    private final Object signal = new Object();
    private volatile boolean started;
    private final Tracing tracing;

    public RunEngine(
            Database database,
            RunnablePipelines pipelines,
            RunStore store,
            ActionCatalog catalog,
            Expressions expressions,
            StepActions actions,
            Clock clock,
            RunMetrics metrics,
            Tracing tracing,
            ApprovalStore approvals,
            ApprovalLinks links) {
        this.tracing = requireNonNull(tracing, "tracing");
        this.database = requireNonNull(database, "database");
        this.approvals = requireNonNull(approvals, "approvals");
        this.links = requireNonNull(links, "links");
        this.pipelines = requireNonNull(pipelines, "pipelines");
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
        this.deadlineTask = Tasks.custom(DEADLINE_TASK, DeadlineTask.class)
                .execute((instance, context) -> deadline(instance.getData()));
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
                pickUp(runId);
            } catch (RuntimeException e) {
                LOG.error("run {} could not be resumed", runId, e);
            }
        }
    }

    /**
     * Starts a run of a stored pipeline; it is queued at once and its first steps begin soon after (when its pipeline
     * caps its running runs, once there is room: the highest {@code priority} first, the definition's unless one is
     * given). Empty when what it is started {@code once} for (a schedule's firing, a webhook call) has started a run
     * already.
     */
    public Optional<Run> start(
            RunnablePipelines.Pipeline pipeline,
            ObjectNode params,
            ObjectNode trigger,
            int timeoutSeconds,
            OptionalInt priority,
            Optional<RunStore.Once> once) {
        try (Traced span = RunSpans.started(tracing, pipeline.id())) {
            return start(pipeline, params, trigger, timeoutSeconds, priority, once, span);
        }
    }

    private Optional<Run> start(
            RunnablePipelines.Pipeline pipeline,
            ObjectNode params,
            ObjectNode trigger,
            int timeoutSeconds,
            OptionalInt priority,
            Optional<RunStore.Once> once,
            Traced span) {
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        long now = clock.millis();
        var steps = new ArrayList<StepRun>();
        for (int i = 0; i < definition.steps().size(); i++) {
            steps.add(pending(definition.steps().get(i).id(), i));
        }
        var run = queued(
                pipeline,
                params,
                trigger,
                timeoutSeconds,
                priority.orElse(definition.priority()),
                Optional.empty(),
                steps,
                now,
                span);
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

    /**
     * Starts a new run that replays an ended one ({@code replay_of}) on {@code definition} (its own, or the
     * pipeline's latest): the steps named in {@code reused} start completed with the outputs they had, and do not run;
     * the others run. The run it replays is not changed.
     */
    public Run replay(
            Run old,
            RunnablePipelines.Pipeline pipeline,
            PipelineDefinition definition,
            ObjectNode params,
            ObjectNode trigger,
            Set<String> reused) {
        try (Traced span = RunSpans.started(tracing, pipeline.id())) {
            return replay(old, pipeline, definition, params, trigger, reused, span);
        }
    }

    private Run replay(
            Run old,
            RunnablePipelines.Pipeline pipeline,
            PipelineDefinition definition,
            ObjectNode params,
            ObjectNode trigger,
            Set<String> reused,
            Traced span) {
        long now = clock.millis();
        var steps = new ArrayList<StepRun>();
        for (int i = 0; i < definition.steps().size(); i++) {
            String id = definition.steps().get(i).id();
            Optional<StepRun> reusedStep = old.step(id).filter(step -> reused.contains(step.id()));
            int position = i;
            steps.add(reusedStep
                    .map(step -> new StepRun(
                            id,
                            position,
                            StepStatus.COMPLETED,
                            step.attempts(),
                            step.outputs(),
                            Optional.empty(),
                            step.startedAt(),
                            step.finishedAt(),
                            OptionalLong.empty(),
                            OptionalLong.empty()))
                    .orElseGet(() -> pending(id, position)));
        }
        var run = queued(
                pipeline,
                params,
                trigger,
                old.timeoutSeconds(),
                definition.priority(),
                Optional.of(old.id()),
                steps,
                now,
                span);
        store.create(run, Optional.empty());
        kept.put(run.id(), new KeptRun(definition, new RunStore.Kept(run.definition())));
        List<String> ready = store.whileActive(run.id(), run.generation(), tx -> {
                    tx.runEvent(
                            RunStatus.QUEUED,
                            "A replay of run " + old.id()
                                    + (reused.isEmpty()
                                            ? "; every step runs again."
                                            : "; these steps keep the outputs they had there and do not run: "
                                                    + String.join(
                                                            ", ",
                                                            reused.stream()
                                                                    .sorted()
                                                                    .toList()) + "."));
                    return advance(tx, definition);
                })
                .orElse(List.of());
        scheduleDeadline(run.id(), run.generation(), run.deadlineAt());
        schedule(run.id(), run.generation(), ready);
        signal();
        return store.find(run.id()).orElseThrow();
    }

    private static StepRun pending(String stepId, int position) {
        return new StepRun(
                stepId,
                position,
                StepStatus.PENDING,
                0,
                Optional.empty(),
                Optional.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalLong.empty(),
                OptionalLong.empty());
    }

    /**
     * A new run of {@code pipeline}'s current version, queued now with {@code steps}, in the trace {@code span} (its
     * start's) begins.
     */
    private static Run queued(
            RunnablePipelines.Pipeline pipeline,
            ObjectNode params,
            ObjectNode trigger,
            int timeoutSeconds,
            int priority,
            Optional<String> replayOf,
            List<StepRun> steps,
            long now,
            Traced span) {
        String id = Ids.next("run");
        span.with("arbor.run.id", id);
        return new Run(
                id,
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
                OptionalLong.empty(),
                replayOf,
                priority,
                steps,
                span.traceparent());
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
                    tx.runEvent(RunStatus.CANCELLED, "The run was cancelled.");
                    return Optional.<RunStatus>empty();
                })
                .orElseThrow();
        if (refused.isPresent()) {
            throw new RunStateException(refused.get());
        }
        ended(runId);
        children(runId, child -> cancel(child));
        return store.find(runId).orElseThrow();
    }

    /**
     * Passes a change of a run on to the runs its Run Pipeline steps started that have not ended (and theirs in
     * turn): one that ended meanwhile is left as it is.
     */
    private void children(String runId, java.util.function.Consumer<String> change) {
        for (String child : store.activeChildren(runId)) {
            try {
                change.accept(child);
            } catch (RunStateException e) {
                // it ended meanwhile
            }
        }
    }

    /**
     * Runs a failed run again from where it failed: its failed and cancelled steps start over, completed ones keep
     * their outputs and do not run again.
     */
    public Run retry(String runId) {
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
                    tx.runEvent(RunStatus.RUNNING, "The run was retried; these steps start over: " + again + ".");
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

    /**
     * Pauses a run that has not ended: no new step starts (a step due or ready stays as it is), and the steps running
     * now finish. A paused run holds no thread: its parked steps' executions find it paused and end, to be scheduled
     * again when it is resumed. A run paused already is answered as it is.
     */
    public Run pause(String runId) {
        Optional<RunStatus> refused = store.locked(runId, tx -> {
                    RunStatus status = tx.run().status();
                    if (!status.active()) {
                        return Optional.of(status);
                    }
                    if (tx.pause()) {
                        tx.runEvent(
                                RunStatus.PAUSED,
                                "The run was paused: steps running now finish, and no new step starts until it is "
                                        + "resumed.");
                    }
                    return Optional.<RunStatus>empty();
                })
                .orElseThrow();
        if (refused.isPresent()) {
            throw new RunStateException(refused.get());
        }
        children(runId, child -> pause(child));
        signal();
        return store.find(runId).orElseThrow();
    }

    /**
     * Resumes a paused run: its deadline, and the due times and wait deadlines of its waiting and retrying steps, move
     * on by the time it was paused, and every step that is ready or open is scheduled. A run that is not paused and
     * has not ended is answered as it is.
     */
    public Run resume(String runId) {
        Optional<RunStatus> refused = store.locked(runId, tx -> {
                    Run run = tx.run();
                    if (!run.status().active()) {
                        return Optional.of(run.status());
                    }
                    if (run.status() == RunStatus.PAUSED) {
                        long paused = Math.max(0, tx.now() - run.pausedAt().orElse(tx.now()));
                        RunStatus to = run.startedAt().isPresent() ? RunStatus.RUNNING : RunStatus.QUEUED;
                        tx.unpause(to, paused);
                        tx.runEvent(
                                to,
                                "The run was resumed after " + paused / 1000 + " s paused; its deadline and its "
                                        + "steps' waits moved on as much.");
                    }
                    return Optional.<RunStatus>empty();
                })
                .orElseThrow();
        if (refused.isPresent()) {
            throw new RunStateException(refused.get());
        }
        pickUp(runId);
        children(runId, child -> resume(child));
        Run run = store.find(runId).orElseThrow();
        try {
            // the deadline armed before the pause would look at the run again within a minute; this is on time
            engine.client()
                    .reschedule(
                            deadlineTask.instanceId(new DeadlineTask(runId, run.generation()).instance()),
                            Instant.ofEpochMilli(run.deadlineAt()));
        } catch (RuntimeException e) {
            // executing now: it finds the deadline moved on and waits for it
        }
        signal();
        return run;
    }

    public ApprovalStore approvals() {
        return approvals;
    }

    /** What answering an approval step came to. */
    public sealed interface Answer {
        /** This answer decided the step; its execution was asked to go on now. */
        record Decided(ApprovalStore.Approval approval) implements Answer {}

        /** The step asks no question at the run's generation (not an approval step, or not reached yet). */
        record NoQuestion() implements Answer {}

        /** The caller is not one of the approvers; the refusal is in the run's events. */
        record NotAnApprover() implements Answer {}

        /** Someone (or the timeout) answered first. */
        record AnsweredAlready(ApprovalStore.Approval approval) implements Answer {}

        /** The run has ended. */
        record RunEnded(RunStatus status) implements Answer {}
    }

    /**
     * Answers an approval step for {@code caller}: of two answers at once (on two servers, too) exactly one decides;
     * the step's execution is then asked to go on at once (a paused run's goes on when it is resumed).
     */
    public Answer answer(
            String runId,
            String stepId,
            ApprovalStore.Status decision,
            dev.arbor.access.Principal caller,
            Optional<String> comment) {
        Run run = store.find(runId).orElseThrow();
        Optional<ApprovalStore.Approval> asked = approvals.find(runId, stepId, run.generation());
        if (asked.isEmpty()) {
            return run.status().active() ? new Answer.NoQuestion() : new Answer.RunEnded(run.status());
        }
        ApprovalStore.Approval approval = asked.get();
        boolean allowed = approval.answerableBy(caller);
        Answer answer = store.locked(runId, tx -> {
                    RunStatus status = tx.run().status();
                    if (!allowed) {
                        tx.logEvent(
                                stepId,
                                "warning",
                                "Token " + caller.tokenId() + " tried to "
                                        + (decision == ApprovalStore.Status.APPROVED ? "approve" : "reject")
                                        + " and is not one of the approvers; refused.");
                        return new Answer.NotAnApprover();
                    }
                    if (!status.active()) {
                        boolean pending = ApprovalStore.find(tx.handle(), runId, stepId, run.generation())
                                .filter(now -> now.status() == ApprovalStore.Status.PENDING)
                                .isPresent();
                        return pending ? new Answer.RunEnded(status) : new Answer.AnsweredAlready(approval);
                    }
                    if (!ApprovalStore.decide(tx, approval.id(), decision, caller.tokenId(), comment)) {
                        return new Answer.AnsweredAlready(approval);
                    }
                    tx.logEvent(
                            stepId,
                            "info",
                            (decision == ApprovalStore.Status.APPROVED ? "Approved" : "Rejected") + " by "
                                    + caller.tokenId()
                                    + comment.map(c -> ": " + c).orElse("."));
                    tx.dueNow(stepId);
                    return new Answer.Decided(approval);
                })
                .orElseThrow();
        if (answer instanceof Answer.Decided) {
            wake(runId, stepId, run.generation());
        }
        if (answer instanceof Answer.AnsweredAlready) {
            return new Answer.AnsweredAlready(
                    approvals.find(runId, stepId, run.generation()).orElseThrow());
        }
        return answer;
    }

    /** Asks an approval step's execution to go on now: its question was answered. */
    private void wake(String runId, String stepId, int generation) {
        try {
            engine.client()
                    .reschedule(
                            stepTask.instanceId(new StepTask(runId, stepId, generation).instance()), clock.instant());
        } catch (RuntimeException e) {
            // executing now, or gone with a pause: its next look (or the resume) finds the answer
        }
        signal();
    }

    /** What the link a token names comes to now, as its page shows it before it is clicked; nothing changes. */
    public ApprovalLinks.LinkState look(String token) {
        Optional<ApprovalStore.Link> link = links.linkId(token).flatMap(approvals::link);
        Optional<ApprovalStore.Approval> approval = link.flatMap(found -> approvals.find(found.approvalId()));
        Optional<Run> run = approval.flatMap(found -> store.find(found.runId()));
        if (link.isEmpty() || approval.isEmpty() || run.isEmpty()) {
            return new ApprovalLinks.LinkState.Invalid();
        }
        return ApprovalLinks.refusal(
                        link.get(),
                        approval.get(),
                        run.get().status(),
                        run.get().generation(),
                        clock.millis())
                .orElseGet(() -> new ApprovalLinks.LinkState.Open(
                        approval.get(), link.get().decision(), link.get().recipient()));
    }

    /**
     * Answers an approval step with the link a token names, as its recipient ({@code by: email:<address>}): the link
     * is used and the question decided in one transaction of the run, so of two clicks (or a click and an answer in
     * the API, or the timeout) exactly one decides; the step's execution is then asked to go on at once.
     */
    public ApprovalLinks.LinkState answer(String token) {
        ApprovalLinks.LinkState looked = look(token);
        if (!(looked instanceof ApprovalLinks.LinkState.Open open)) {
            return looked;
        }
        ApprovalStore.Approval asked = open.approval();
        String linkId = links.linkId(token).orElseThrow();
        String by = "email:" + open.recipient();
        ApprovalLinks.LinkState state = store.locked(asked.runId(), tx -> {
                    ApprovalStore.Link link =
                            ApprovalStore.link(tx.handle(), linkId).orElseThrow();
                    ApprovalStore.Approval now = ApprovalStore.find(
                                    tx.handle(), asked.runId(), asked.stepId(), asked.generation())
                            .orElseThrow();
                    Run run = tx.run();
                    Optional<ApprovalLinks.LinkState> refused =
                            ApprovalLinks.refusal(link, now, run.status(), run.generation(), tx.now());
                    if (refused.isPresent()) {
                        return refused.get();
                    }
                    if (!ApprovalStore.decide(tx, now.id(), link.decision(), by, Optional.empty())
                            || !ApprovalStore.useLink(tx, linkId)) {
                        return new ApprovalLinks.LinkState.AnsweredAlready(now);
                    }
                    tx.logEvent(
                            now.stepId(),
                            "info",
                            (link.decision() == ApprovalStore.Status.APPROVED ? "Approved" : "Rejected") + " by " + by
                                    + " with the email's one-click link.");
                    tx.dueNow(now.stepId());
                    return new ApprovalLinks.LinkState.Decided(now, link.decision(), link.recipient());
                })
                .orElseThrow();
        if (state instanceof ApprovalLinks.LinkState.Decided) {
            wake(asked.runId(), asked.stepId(), asked.generation());
        }
        return switch (state) {
            case ApprovalLinks.LinkState.Decided decided ->
                new ApprovalLinks.LinkState.Decided(
                        approvals.find(asked.id()).orElseThrow(), decided.decision(), decided.recipient());
            case ApprovalLinks.LinkState.AnsweredAlready answered ->
                new ApprovalLinks.LinkState.AnsweredAlready(
                        approvals.find(asked.id()).orElseThrow());
            default -> state;
        };
    }

    /** Waits up to {@code millis} for any run to change here; another node's changes are seen by polling. */
    public void awaitChange(long millis) throws InterruptedException {
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
                || !found.get().status().moving()) {
            // a paused run's step ends its execution here: resuming the run schedules it again
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
        if (run.status() == RunStatus.QUEUED && definition.maxConcurrentRuns().isPresent()) {
            Optional<Boolean> admitted = store.admit(
                    task.runId(),
                    task.generation(),
                    definition.maxConcurrentRuns().getAsInt());
            if (admitted.isEmpty()) {
                return Next.NOTHING;
            }
            if (!admitted.get()) {
                return Next.parked(now + ADMISSION_RECHECK_MILLIS);
            }
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
        Outcome outcome;
        try (Traced span = RunSpans.attempt(tracing, run, step, attempt)) {
            outcome = attempt(task, step, run, scope, now, startedAt, state.waitDeadlineAt());
            RunSpans.ended(span, outcome);
        }
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
                                tx.stepEvent(
                                        task.stepId(),
                                        StepStatus.WAITING,
                                        step.action().equals(APPROVAL)
                                                ? "Waiting for an approver's answer."
                                                : "Waiting for its condition.");
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

    /**
     * Marks a step running for an attempt (and its run, at its first step); false when the step has ended, or the run
     * was paused since the step's execution read it.
     */
    private static boolean begin(RunStore.Transition tx, PipelineDefinition.Step step, Start start) {
        if (tx.paused() || !tx.startStep(step.id(), start.attempt())) {
            return false;
        }
        if (start.runWas() == RunStatus.QUEUED && tx.runStarted()) {
            tx.runEvent(RunStatus.RUNNING, "The run started.");
        }
        if (start.before() != StepStatus.WAITING) {
            int of = step.retry().map(PipelineDefinition.Retry::maxAttempts).orElse(1);
            tx.stepEvent(
                    step.id(),
                    StepStatus.RUNNING,
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
        if (step.action().equals(APPROVAL)) {
            return approval(task, run, params, now, startedAt, waitDeadline);
        }
        if (step.action().equals(RUN_PIPELINE)) {
            return subPipeline(task, run, params, now);
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
        // the attempt's span goes with it: its outbound calls carry its traceparent
        Future<Outcome> future = attempts.submit(Propagation.carried(() -> actions.run(call)));
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

    /**
     * An approval step's attempt: asks its question the first time, waits (holding no thread) until it is answered
     * or its time runs out (then {@code on_timeout} answers), and ends with the answer: approved completes the step,
     * rejected fails it.
     */
    private Outcome approval(
            StepTask task, Run run, ObjectNode params, long now, long startedAt, OptionalLong waitDeadline) {
        long expires = waitDeadline.isPresent()
                ? waitDeadline.getAsLong()
                : startedAt + params.path("timeout_seconds").asLong(86_400) * 1000;
        var approvers = new ArrayList<String>();
        params.path("approvers").forEach(approver -> approvers.add(approver.asText()));
        ApprovalStore.Approval asked = approvals.ask(
                task.runId(),
                task.stepId(),
                task.generation(),
                run.pipelineId(),
                params.path("message").asText(),
                approvers,
                params.path("on_timeout").asText("reject").equals("approve")
                        ? ApprovalStore.Status.APPROVED
                        : ApprovalStore.Status.REJECTED,
                now,
                expires);
        if (asked.status() == ApprovalStore.Status.PENDING && now >= asked.expiresAt()) {
            approvals.expire(asked.id(), now);
            asked = approvals
                    .find(task.runId(), task.stepId(), task.generation())
                    .orElseThrow();
        }
        if (asked.status() == ApprovalStore.Status.PENDING) {
            tell(task, asked, params);
        }
        String by = asked.decidedBy().orElse("");
        return switch (asked.status()) {
            case PENDING -> new Outcome.Waiting(asked.expiresAt(), asked.expiresAt());
            case APPROVED -> new Outcome.Done(decision(asked));
            case REJECTED ->
                new Outcome.Failed(
                        "approval_rejected",
                        (by.equals("timeout")
                                        ? "No approver answered in time, and its on_timeout rejects"
                                        : "Rejected by " + by)
                                + asked.comment().map(c -> ": " + c).orElse("."),
                        false);
        };
    }

    /** Tells an approval step's channels of its question, once; what could not be told goes to the run's events. */
    private void tell(StepTask task, ApprovalStore.Approval asked, ObjectNode params) {
        var channels = new ArrayList<String>();
        params.path("channels").forEach(channel -> channels.add(channel.asText()));
        var recipients = new ArrayList<String>();
        params.path("recipients").forEach(recipient -> recipients.add(recipient.asText()));
        List<String> failures;
        try {
            failures = links.tell(asked, channels, recipients);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            // the server is stopping: the step's execution runs again after the restart, and tells them then
            throw new IllegalStateException("interrupted while step " + task.stepId() + " told its channels", e);
        }
        for (String failure : failures) {
            store.whileActive(task.runId(), task.generation(), tx -> {
                tx.logEvent(task.stepId(), "warning", failure);
                return true;
            });
        }
    }

    /**
     * A Run Pipeline step: starts the run of the pipeline it names once per generation (a repeat finds the run it
     * started), then, unless {@code wait} is false, waits without a thread until that run ends: completed gives its
     * {@code outputs}, failed or cancelled fails the step.
     */
    private Outcome subPipeline(StepTask task, Run run, ObjectNode params, long now) {
        var parent = new RunStore.ChildOf(task.runId(), task.stepId(), task.generation());
        Optional<Run> child = store.childOf(parent);
        String pipelineId = params.path("pipeline_id").asText();
        if (child.isEmpty()) {
            if (store.depth(task.runId()) >= MAX_SUB_PIPELINE_DEPTH) {
                return new Outcome.Failed(
                        "sub_pipeline_too_deep",
                        "Run " + task.runId() + " is " + MAX_SUB_PIPELINE_DEPTH + " runs deep in Run Pipeline steps: it"
                                + " may start no further one.",
                        false);
            }
            RunnablePipelines.Pipeline target;
            try {
                target = pipelines.require(pipelineId);
            } catch (ApiException e) {
                return new Outcome.Failed("pipeline_not_found", "There is no pipeline '" + pipelineId + "'.", false);
            }
            if (target.paused()) {
                return new Outcome.Failed(
                        "pipeline_paused", "Pipeline " + pipelineId + " is paused: it starts no new run.", false);
            }
            PipelineDefinition definition = PipelineDefinition.stored(target.definition(), catalog);
            var problems = new Problems();
            JsonNode given = params.path("params");
            ObjectNode checked = definition.runParams(given.isObject() ? given : Json.object(), problems);
            if (!problems.isEmpty()) {
                return new Outcome.Failed(
                        "invalid_params",
                        "The params do not fit pipeline " + pipelineId + ": "
                                + problems.list().stream().map(Problem::message).collect(Collectors.joining(" ")),
                        false);
            }
            ObjectNode trigger = Json.object()
                    .put("type", "pipeline")
                    .put("run_id", task.runId())
                    .put("step_id", task.stepId());
            trigger.putObject("event")
                    .put("type", "pipeline")
                    .put("run_id", task.runId())
                    .put("pipeline_id", run.pipelineId());
            start(target, checked, trigger, definition.timeoutSeconds(), OptionalInt.empty(), Optional.of(parent));
            child = store.childOf(parent);
        }
        Run started = child.orElseThrow();
        if (!params.path("wait").asBoolean(true)) {
            return new Outcome.Done(Json.object()
                    .put("run_id", started.id())
                    .put("status", started.status().json())
                    .set("outputs", Json.object()));
        }
        if (started.status().active()) {
            return new Outcome.Waiting(now + SUB_PIPELINE_CHECK_MILLIS, run.deadlineAt());
        }
        if (started.status() != RunStatus.COMPLETED) {
            return new Outcome.Failed(
                    "sub_pipeline_failed",
                    "Run " + started.id() + " of pipeline " + started.pipelineId() + " "
                            + started.status().json()
                            + started.error()
                                    .map(error -> ": " + error.path("message").asText())
                                    .orElse("."),
                    false);
        }
        return new Outcome.Done(Json.object()
                .put("run_id", started.id())
                .put("status", started.status().json())
                .set("outputs", started.outputs().orElse(Json.object())));
    }

    /** An approval's answer as its step's outputs: {@code decision}, {@code by}, {@code at} (seconds), {@code comment}. */
    private static ObjectNode decision(ApprovalStore.Approval approval) {
        ObjectNode outputs = Json.object()
                .put("decision", approval.status().json())
                .put("by", approval.decidedBy().orElse(""))
                .put("at", approval.decidedAt().orElse(0) / 1000);
        outputs.put("comment", approval.comment().orElse(null));
        return outputs;
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
                                StepStatus.RETRYING,
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
                    tx.stepEvent(task.stepId(), status, message);
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
                                    StepStatus.SKIPPED,
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
                    tx.stepEvent(step.id(), StepStatus.SKIPPED, "Skipped: every step it depends on was skipped.");
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
        tx.runEvent(RunStatus.COMPLETED, "The run completed.");
    }

    private static void failRun(RunStore.Transition tx, ObjectNode error, String message) {
        tx.endOpenSteps(StepStatus.CANCELLED, message);
        tx.endRun(RunStatus.FAILED, Optional.empty(), Optional.of(error));
        tx.runEvent(RunStatus.FAILED, message + " " + error.path("message").asText());
    }

    private CompletionHandler<DeadlineTask> deadline(DeadlineTask task) {
        OptionalLong again = timeOut(task.runId(), task.generation());
        if (again.isEmpty()) {
            return new CompletionHandler.OnCompleteRemove<>();
        }
        Instant due = Instant.ofEpochMilli(again.getAsLong());
        return (complete, operations) -> operations.reschedule(complete, due);
    }

    /** What a look at a run's deadline came to: whether it timed the run out, and when to look again. */
    private record DeadlineCheck(boolean timedOut, OptionalLong again) {
        static final DeadlineCheck DONE = new DeadlineCheck(false, OptionalLong.empty());
    }

    /**
     * Fails a run past its deadline. A paused run's time does not count: its deadline is looked at again later (a
     * resume moves it on by the time paused), as is a deadline a resume moved on. Returns when to look again.
     */
    private OptionalLong timeOut(String runId, int generation) {
        DeadlineCheck check = store.whileActive(runId, generation, tx -> {
                    Run run = tx.run();
                    if (run.status() == RunStatus.PAUSED) {
                        return new DeadlineCheck(false, OptionalLong.of(tx.now() + PAUSED_DEADLINE_CHECK_MILLIS));
                    }
                    if (tx.now() < run.deadlineAt()) {
                        return new DeadlineCheck(false, OptionalLong.of(run.deadlineAt()));
                    }
                    failRun(
                            tx,
                            Json.object()
                                    .put("code", "run_timed_out")
                                    .put(
                                            "message",
                                            "The run took longer than its " + run.timeoutSeconds() + " seconds."),
                            "The run timed out.");
                    return new DeadlineCheck(true, OptionalLong.empty());
                })
                .orElse(DeadlineCheck.DONE);
        if (check.timedOut()) {
            ended(runId);
        }
        return check.again();
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
        wakeQueued(after);
        signal();
    }

    /**
     * A run of a pipeline that caps its runs has ended: the queued runs next in line (as many as the cap) look for room
     * now instead of at their next look, {@link #ADMISSION_RECHECK_MILLIS} away. Their first steps' executions are
     * made due now; the one that finds room starts, the others park again.
     */
    private void wakeQueued(Run ended) {
        JsonNode cap = ended.definition().path("max_concurrent_runs");
        if (!cap.isInt()) {
            return;
        }
        for (String queuedId : store.queuedRunIds(ended.pipelineId(), cap.intValue())) {
            Optional<Run> queued = store.find(queuedId);
            if (queued.isEmpty()) {
                continue;
            }
            for (PipelineDefinition.Step step : definition(queued.get()).steps()) {
                if (step.dependsOn().isEmpty()) {
                    try {
                        engine.client()
                                .reschedule(
                                        stepTask.instanceId(new StepTask(
                                                        queuedId,
                                                        step.id(),
                                                        queued.get().generation())
                                                .instance()),
                                        clock.instant());
                    } catch (RuntimeException e) {
                        // executing now (it looks for room anyway), or not parked: nothing to wake
                    }
                }
            }
        }
    }

    private void cancelQuietly(com.github.kagkarlsson.scheduler.task.TaskInstanceId id) {
        try {
            engine.client().cancel(id);
        } catch (RuntimeException e) {
            // gone already, or executing now: it will find its run ended and do nothing
        }
    }

    /**
     * Makes sure a run goes on (left unfinished by a stopped server, or resumed): every ready or open step has its
     * execution.
     */
    private void pickUp(String runId) {
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
