package dev.arbor.pipelines.runs.store;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Dialect;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.json.Json;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;

/**
 * The SQL of runs, their steps and their events. Every change to a run happens in a {@link Transition}: one
 * transaction that first locks the run's row, so that two steps ending at once (on two nodes, too) see each other.
 */
public final class RunStore {
    private static final String RUN_COLUMNS = "id, pipeline_id, pipeline_version, definition, params, triggered_by, "
            + "status, generation, outputs, error, timeout_seconds, deadline_at, created_at, started_at, finished_at, paused_at, replay_of, priority, trace_parent";
    private static final String RUN_COLUMNS_BUT_DEFINITION = RUN_COLUMNS.replace("definition, ", "");
    private static final String STEP_COLUMNS = "step_id, position, status, attempts, outputs, error, started_at, "
            + "finished_at, due_at, wait_deadline_at";

    public enum RunStatus {
        QUEUED,
        RUNNING,
        /** Started no new step until resumed; the steps that were running when it was paused finish. */
        PAUSED,
        COMPLETED,
        FAILED,
        CANCELLED;

        /** Not finished: it may still change (queued, running or paused). */
        public boolean active() {
            return this == QUEUED || this == RUNNING || this == PAUSED;
        }

        /** Whether its steps may start: queued or running, not paused. */
        public boolean moving() {
            return this == QUEUED || this == RUNNING;
        }

        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public enum StepStatus {
        PENDING,
        RUNNING,
        WAITING,
        RETRYING,
        COMPLETED,
        FAILED,
        SKIPPED,
        CANCELLED;

        public boolean finished() {
            return this == COMPLETED || this == FAILED || this == SKIPPED || this == CANCELLED;
        }

        public String json() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** A run as stored, with its steps in the definition's order. */
    public record Run(
            String id,
            String pipelineId,
            int pipelineVersion,
            ObjectNode definition,
            ObjectNode params,
            ObjectNode trigger,
            RunStatus status,
            int generation,
            Optional<JsonNode> outputs,
            Optional<JsonNode> error,
            int timeoutSeconds,
            long deadlineAt,
            long createdAt,
            OptionalLong startedAt,
            OptionalLong finishedAt,
            OptionalLong pausedAt,
            Optional<String> replayOf,
            int priority,
            List<StepRun> steps,
            Optional<String> traceParent) {
        public Run {
            steps = List.copyOf(steps);
            requireNonNull(traceParent, "traceParent");
        }

        public Optional<StepRun> step(String stepId) {
            return steps.stream().filter(step -> step.id().equals(stepId)).findFirst();
        }
    }

    public record StepRun(
            String id,
            int position,
            StepStatus status,
            int attempts,
            Optional<JsonNode> outputs,
            Optional<JsonNode> error,
            OptionalLong startedAt,
            OptionalLong finishedAt,
            OptionalLong dueAt,
            OptionalLong waitDeadlineAt) {}

    private final Database database;
    private final Clock clock;
    private final RunMetrics metrics;

    /** The PostgreSQL advisory lock that makes runs' admissions one at a time across servers. */
    private static final long ADMISSION_LOCK = 0x5049_5045_4C49_4E45L;

    public RunStore(Database database, Clock clock, RunMetrics metrics) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.metrics = requireNonNull(metrics, "metrics");
    }

    /** What starts one run however often it is delivered: a schedule's firing, a webhook call. */
    public sealed interface Once permits Firing, WebhookCall, ChildOf {}

    /** A schedule's firing: the schedule and the time it fires for. */
    public record Firing(String scheduleId, long scheduledFor) implements Once {
        public Firing {
            requireNonNull(scheduleId, "scheduleId");
        }
    }

    /** The run a Run Pipeline step starts, one per step and generation of its parent run. */
    public record ChildOf(String runId, String stepId, int generation) implements Once {
        public ChildOf {
            requireNonNull(runId, "runId");
            requireNonNull(stepId, "stepId");
        }
    }

    /** A call to a pipeline's webhook, known by its {@code webhook-id}. */
    public record WebhookCall(String webhookId) implements Once {
        public WebhookCall {
            requireNonNull(webhookId, "webhookId");
        }
    }

    /** The run a firing started, when it started one. */
    public Optional<String> runOf(Firing firing) {
        return database.read(handle -> handle.createQuery(
                        "SELECT id FROM pipeline_runs WHERE schedule_id = :s AND scheduled_for = :at")
                .bind("s", firing.scheduleId())
                .bind("at", firing.scheduledFor())
                .mapTo(String.class)
                .findOne());
    }

    /**
     * How long a webhook call's id is kept: past it, a repeat of the call is refused by its timestamp (at most 5
     * minutes from the server's time, either way) before its id is looked at.
     */
    static final long WEBHOOK_CALLS_KEPT_MILLIS = 10 * 60 * 1000L;

    /**
     * Stores a new run, queued, with every step pending; false, storing nothing, when what it is started {@code once}
     * for has started a run already.
     */
    public boolean create(Run run, Optional<Once> once) {
        return database.write(handle -> {
            if (once.isPresent() && !firstOf(handle, run, once.get())) {
                return false;
            }
            Optional<Firing> firing = once.filter(Firing.class::isInstance).map(Firing.class::cast);
            Optional<ChildOf> parent = once.filter(ChildOf.class::isInstance).map(ChildOf.class::cast);
            // another server may start the same firing between the check above and this insert: its unique index
            // makes ours a no-op, not an error
            int inserted = handle.createUpdate("INSERT INTO pipeline_runs (" + RUN_COLUMNS + ", updated_at, "
                            + "schedule_id, scheduled_for, max_concurrent_runs, parent_run_id, parent_step_id, "
                            + "parent_generation) VALUES (:id, :pipeline, :version, :definition, :params, "
                            + ":trigger, 'queued', :generation, NULL, NULL, :timeout, :deadline, :created, NULL, NULL, NULL, :replayOf, "
                            + ":priority, :traceParent, :created, :schedule, :scheduled, :maxConcurrent, :parentRun, :parentStep, :parentGeneration) "
                            + "ON CONFLICT DO NOTHING")
                    .bind("schedule", firing.map(Firing::scheduleId).orElse(null))
                    .bind("scheduled", firing.map(Firing::scheduledFor).orElse(null))
                    .bind("id", run.id())
                    .bind("replayOf", run.replayOf().orElse(null))
                    .bind("traceParent", run.traceParent().orElse(null))
                    .bind("pipeline", run.pipelineId())
                    .bind("version", run.pipelineVersion())
                    .bind("definition", Json.writeString(run.definition()))
                    .bind("params", Json.writeString(run.params()))
                    .bind("trigger", Json.writeString(run.trigger()))
                    .bind("generation", run.generation())
                    .bind("timeout", run.timeoutSeconds())
                    .bind("deadline", run.deadlineAt())
                    .bind("created", run.createdAt())
                    .bind("priority", run.priority())
                    .bind("parentRun", parent.map(ChildOf::runId).orElse(null))
                    .bind("parentStep", parent.map(ChildOf::stepId).orElse(null))
                    .bind("parentGeneration", parent.map(ChildOf::generation).orElse(null))
                    // the cap of the definition the run keeps: runs of other versions count against it too
                    .bind(
                            "maxConcurrent",
                            run.definition().path("max_concurrent_runs").isInt()
                                    ? run.definition()
                                            .path("max_concurrent_runs")
                                            .intValue()
                                    : null)
                    .execute();
            if (inserted == 0) {
                return false;
            }
            // pending, or (in a replay) completed with the outputs of the run it replays
            var insert = handle.prepareBatch("INSERT INTO pipeline_run_steps (run_id, step_id, position, status, "
                    + "attempts, outputs, started_at, finished_at) VALUES (:run, :step, :position, :status, :attempts, "
                    + ":outputs, :started, :finished)");
            for (StepRun step : run.steps()) {
                insert.bind("run", run.id())
                        .bind("step", step.id())
                        .bind("position", step.position())
                        .bind("status", step.status().json())
                        .bind("attempts", step.attempts())
                        .bind("outputs", step.outputs().map(Json::writeString).orElse(null))
                        .bind(
                                "started",
                                step.startedAt().isPresent() ? step.startedAt().getAsLong() : null)
                        .bind(
                                "finished",
                                step.finishedAt().isPresent()
                                        ? step.finishedAt().getAsLong()
                                        : null)
                        .add();
            }
            insert.execute();
            new Transition(handle, run.id(), run.createdAt()).runEvent(RunStatus.QUEUED, "The run is queued.");
            return true;
        });
    }

    /** Records that {@code once} starts {@code run}; false when it has started one already. */
    private static boolean firstOf(Handle handle, Run run, Once once) {
        return switch (once) {
            case Firing firing ->
                handle.createQuery("SELECT count(*) FROM pipeline_runs WHERE schedule_id = :s AND scheduled_for = :at")
                                .bind("s", firing.scheduleId())
                                .bind("at", firing.scheduledFor())
                                .mapTo(Integer.class)
                                .one()
                        == 0;
            // the unique index on the parent's columns makes a second start at the same time insert nothing
            case ChildOf parent -> true;
            case WebhookCall call -> {
                handle.createUpdate("DELETE FROM pipeline_webhook_calls WHERE pipeline_id = :p AND received_at < :old")
                        .bind("p", run.pipelineId())
                        .bind("old", run.createdAt() - WEBHOOK_CALLS_KEPT_MILLIS)
                        .execute();
                // a repeat sent at the same time waits here for the first to commit, then inserts nothing
                yield handle.createUpdate("INSERT INTO pipeline_webhook_calls (pipeline_id, webhook_id, run_id, "
                                        + "received_at) VALUES (:p, :id, :run, :at) ON CONFLICT DO NOTHING")
                                .bind("p", run.pipelineId())
                                .bind("id", call.webhookId())
                                .bind("run", run.id())
                                .bind("at", run.createdAt())
                                .execute()
                        == 1;
            }
        };
    }

    /** The run a Run Pipeline step started, at its parent's generation. */
    public Optional<Run> childOf(ChildOf parent) {
        return database.read(handle -> handle.createQuery("SELECT id FROM pipeline_runs WHERE parent_run_id = :run "
                                + "AND parent_step_id = :step AND parent_generation = :generation")
                        .bind("run", parent.runId())
                        .bind("step", parent.stepId())
                        .bind("generation", parent.generation())
                        .mapTo(String.class)
                        .findOne())
                .flatMap(this::find);
    }

    /** The runs Run Pipeline steps of {@code runId} started that have not ended. */
    public List<String> activeChildren(String runId) {
        return database.read(handle -> handle.createQuery("SELECT id FROM pipeline_runs WHERE parent_run_id = :run "
                        + "AND status IN ('queued', 'running', 'paused') ORDER BY id")
                .bind("run", runId)
                .mapTo(String.class)
                .list());
    }

    /** How many runs started {@code runId}, one inside the other: 0 for a run no step started. */
    public int depth(String runId) {
        return database.read(handle -> {
            int depth = 0;
            Optional<String> parent = parentOf(handle, runId);
            // bounded: a run's parent is older than it, so the chain has no loop
            while (parent.isPresent()) {
                depth++;
                parent = parentOf(handle, parent.get());
            }
            return depth;
        });
    }

    private static Optional<String> parentOf(Handle handle, String runId) {
        return handle.createQuery("SELECT parent_run_id FROM pipeline_runs WHERE id = :id")
                .bind("id", runId)
                .mapTo(String.class)
                .findOne()
                .flatMap(Optional::ofNullable);
    }

    /** The run a call to a pipeline's webhook started. */
    public Optional<String> webhookRun(String pipelineId, String webhookId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT run_id FROM pipeline_webhook_calls WHERE pipeline_id = :p AND webhook_id = :id")
                .bind("p", pipelineId)
                .bind("id", webhookId)
                .mapTo(String.class)
                .findOne());
    }

    public Optional<Run> find(String runId) {
        return database.read(handle -> find(handle, runId));
    }

    private static Optional<Run> find(Handle handle, String runId) {
        return handle.createQuery("SELECT " + RUN_COLUMNS + " FROM pipeline_runs WHERE id = :id")
                .bind("id", runId)
                .map((rs, ctx) -> run(rs, steps(handle, runId)))
                .findOne();
    }

    /**
     * What the engine keeps of a run between its steps' executions, so that each reads little: its definition (a
     * run's never changes) and, for the generation it last saw, its finished steps (a finished step does not change
     * until a retry opens a new generation), whose outputs are then not read again.
     */
    public static final class Kept {
        private final ObjectNode definition;
        private final AtomicReference<Finished> finished = new AtomicReference<>(new Finished(0, Map.of()));

        private record Finished(int generation, Map<String, StepRun> steps) {}

        public Kept(ObjectNode definition) {
            this.definition = requireNonNull(definition, "definition");
        }

        /** The finished steps kept for {@code generation}: a newer one starts afresh, an older (stale) reader alone. */
        private Map<String, StepRun> finishedAt(int generation) {
            Finished now = finished.updateAndGet(kept ->
                    kept.generation() < generation ? new Finished(generation, new ConcurrentHashMap<>()) : kept);
            return now.generation() == generation ? now.steps() : new HashMap<>();
        }
    }

    /**
     * A run read for one of its steps' executions: the definition is {@code kept}'s, and only the steps that have
     * not finished, or finished since the last read, have their outputs and errors read.
     */
    public Optional<Run> find(String runId, Kept kept) {
        return database.read(handle -> handle.createQuery(
                        "SELECT " + RUN_COLUMNS_BUT_DEFINITION + " FROM pipeline_runs WHERE id = :id")
                .bind("id", runId)
                .map((rs, ctx) -> {
                    Map<String, StepRun> finished = kept.finishedAt(rs.getInt("generation"));
                    return run(rs, kept.definition, steps(handle, runId, finished));
                })
                .findOne());
    }

    /** A run's steps, taking the finished ones from {@code finished} and adding those finished since. */
    private static List<StepRun> steps(Handle handle, String runId, Map<String, StepRun> finished) {
        return handle.createQuery("SELECT " + STEP_COLUMNS + " FROM pipeline_run_steps WHERE run_id = :run "
                        + "ORDER BY position")
                .bind("run", runId)
                .map((rs, ctx) -> {
                    StepRun known = finished.get(rs.getString("step_id"));
                    if (known != null) {
                        return known; // its outputs are not read again
                    }
                    StepRun step = step(rs, ctx);
                    if (step.status().finished()) {
                        finished.put(step.id(), step);
                    }
                    return step;
                })
                .list();
    }

    /** A pipeline's runs, newest first, without their steps. */
    public Paging.Result<Run> list(String pipelineId, Page page, Optional<RunStatus> status) {
        String filter = "pipeline_runs WHERE pipeline_id = :pipeline"
                + status.map(s -> " AND status = :status").orElse("");
        return database.read(handle -> Paging.newestFirst(
                handle,
                RUN_COLUMNS,
                filter,
                page,
                (rs, ctx) -> run(rs, List.of()),
                cursor -> handle.createQuery("SELECT count(*) FROM pipeline_runs WHERE id = :id AND pipeline_id = :p")
                                .bind("id", cursor)
                                .bind("p", pipelineId)
                                .mapTo(Integer.class)
                                .one()
                        > 0,
                query -> {
                    query.bind("pipeline", pipelineId);
                    status.ifPresent(s -> query.bind("status", s.json()));
                }));
    }

    /**
     * The ids of a pipeline's runs in {@code status} created at or after {@code since}, oldest first, that no run
     * replays yet; at most {@code limit}.
     */
    public List<String> unreplayed(String pipelineId, RunStatus status, long since, int limit) {
        return database.read(handle -> handle.createQuery("SELECT id FROM pipeline_runs r WHERE pipeline_id = :p "
                        + "AND status = :status AND created_at >= :since AND NOT EXISTS (SELECT 1 FROM pipeline_runs "
                        + "later WHERE later.replay_of = r.id) ORDER BY created_at, id LIMIT :limit")
                .bind("p", pipelineId)
                .bind("status", status.json())
                .bind("since", since)
                .bind("limit", limit)
                .mapTo(String.class)
                .list());
    }

    /** The ids of a pipeline's queued runs in the order they start: the highest priority, then the oldest, first. */
    public List<String> queuedRunIds(String pipelineId, int limit) {
        return database.read(handle -> handle.createQuery("SELECT id FROM pipeline_runs WHERE pipeline_id = :p AND "
                        + "status = 'queued' ORDER BY priority DESC, created_at, id LIMIT :limit")
                .bind("p", pipelineId)
                .bind("limit", limit)
                .mapTo(String.class)
                .list());
    }

    /** The ids of runs not finished yet (queued or running), to pick up again after a restart. */
    public List<String> activeRunIds() {
        return database.read(handle -> handle.createQuery(
                        "SELECT id FROM pipeline_runs WHERE status IN ('queued', 'running') ORDER BY id")
                .mapTo(String.class)
                .list());
    }

    public List<String> activeRunsOf(String pipelineId) {
        return database.read(handle -> handle.createQuery(
                        "SELECT id FROM pipeline_runs WHERE pipeline_id = :p AND status IN ('queued', 'running', 'paused')")
                .bind("p", pipelineId)
                .mapTo(String.class)
                .list());
    }

    /** Events of a run after the one with id {@code afterId}, oldest first. */
    public List<RunEvent.Stored> events(String runId, long afterId, int limit) {
        return database.read(handle -> handle.createQuery(
                        "SELECT id, run_id, at, kind, step_id, status, level, "
                                + "message FROM pipeline_run_events WHERE run_id = :run AND id > :after ORDER BY id LIMIT :limit")
                .bind("run", runId)
                .bind("after", afterId)
                .bind("limit", limit)
                .map((rs, ctx) -> new RunEvent.Stored(
                        rs.getLong("id"),
                        rs.getString("run_id"),
                        rs.getLong("at"),
                        RunEventCodec.read(new RunEventCodec.Columns(
                                rs.getString("kind"),
                                rs.getString("step_id"),
                                rs.getString("status"),
                                rs.getString("level"),
                                rs.getString("message")))))
                .list());
    }

    /**
     * Runs {@code work} in one transaction on a run that is still active (paused included: its running steps end) at
     * {@code generation}; empty, with nothing done, when it is not (finished, cancelled, retried since, or gone).
     */
    public <T> Optional<T> whileActive(String runId, int generation, Function<Transition, T> work) {
        return inTransition(
                runId,
                work,
                (handle, now) -> handle.createUpdate("UPDATE pipeline_runs "
                                + "SET updated_at = :now WHERE id = :id AND generation = :generation "
                                + "AND status IN ('queued', 'running', 'paused')")
                        .bind("now", now)
                        .bind("id", runId)
                        .bind("generation", generation)
                        .execute());
    }

    /**
     * Admits a queued run of a pipeline that caps its running runs (see {@link Transition#admit}); empty when the run
     * is no longer active at {@code generation}.
     */
    public Optional<Boolean> admit(String runId, int generation, int maxConcurrentRuns) {
        boolean acrossServers = database.dialect() == Dialect.POSTGRESQL;
        return whileActive(runId, generation, tx -> tx.admit(maxConcurrentRuns, acrossServers));
    }

    /** Runs {@code work} in one transaction on a run in any state, its row locked; empty when there is no run. */
    public <T> Optional<T> locked(String runId, Function<Transition, T> work) {
        return inTransition(
                runId,
                work,
                (handle, now) -> handle.createUpdate("UPDATE pipeline_runs SET updated_at = :now WHERE id = :id")
                        .bind("now", now)
                        .bind("id", runId)
                        .execute());
    }

    /** {@code work} in one transaction once {@code lock} has touched the run's row; empty when it touched none. */
    private <T> Optional<T> inTransition(
            String runId, Function<Transition, T> work, BiFunction<Handle, Long, Integer> lock) {
        var committed = new AtomicReference<Transition>();
        Optional<T> result = database.write(handle -> {
            long now = clock.millis();
            if (lock.apply(handle, now) == 0) {
                return Optional.empty();
            }
            var transition = new Transition(handle, runId, now);
            committed.set(transition);
            return Optional.ofNullable(work.apply(transition));
        });
        counted(committed);
        return result;
    }

    /**
     * Counts what a transition ended once its transaction committed (a transaction tried again makes a new
     * transition, and one that failed threw before this).
     */
    private void counted(AtomicReference<Transition> committed) {
        Transition transition = committed.get();
        if (transition != null) {
            transition.stepsEnded.forEach(metrics::stepEnded);
            transition.runEnded.ifPresent(metrics::runEnded);
        }
    }

    /** Changes to one run inside its transaction. */
    public static final class Transition {
        private final Handle handle;
        private final String runId;
        private final long now;
        private final List<StepStatus> stepsEnded = new ArrayList<>();
        private Optional<RunStatus> runEnded = Optional.empty();

        private Transition(Handle handle, String runId, long now) {
            this.handle = handle;
            this.runId = runId;
            this.now = now;
        }

        public long now() {
            return now;
        }

        /** The transaction's handle, for the run's other tables (its approvals) to change with it. */
        public Handle handle() {
            return handle;
        }

        public Run run() {
            return find(handle, runId).orElseThrow();
        }

        /** Each step's status, by id: what moving a run on needs, without the steps' outputs. */
        public Map<String, StepStatus> stepStatuses() {
            return handle.createQuery("SELECT step_id, status FROM pipeline_run_steps WHERE run_id = :run")
                    .bind("run", runId)
                    .map((rs, ctx) -> Map.entry(
                            rs.getString("step_id"),
                            StepStatus.valueOf(rs.getString("status").toUpperCase(Locale.ROOT))))
                    .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }

        /** Whether the run is paused: no step of it starts. */
        public boolean paused() {
            return handle.createQuery("SELECT status FROM pipeline_runs WHERE id = :id")
                    .bind("id", runId)
                    .mapTo(String.class)
                    .one()
                    .equals(RunStatus.PAUSED.json());
        }

        /** Pauses a queued or running run; false when it was neither. */
        public boolean pause() {
            return handle.createUpdate("UPDATE pipeline_runs SET status = 'paused', paused_at = :now WHERE id = :id "
                                    + "AND status IN ('queued', 'running')")
                            .bind("now", now)
                            .bind("id", runId)
                            .execute()
                    == 1;
        }

        /**
         * Moves a paused run back to {@code status}, its deadline and its parked steps' due times and wait deadlines
         * on by {@code pausedMillis}: time paused does not count against them.
         */
        public void unpause(RunStatus status, long pausedMillis) {
            handle.createUpdate("UPDATE pipeline_runs SET status = :status, paused_at = NULL, "
                            + "deadline_at = deadline_at + :paused WHERE id = :id AND status = 'paused'")
                    .bind("status", status.json())
                    .bind("paused", pausedMillis)
                    .bind("id", runId)
                    .execute();
            handle.createUpdate("UPDATE pipeline_run_steps SET due_at = due_at + :paused, "
                            + "wait_deadline_at = wait_deadline_at + :paused WHERE run_id = :run "
                            + "AND status IN ('waiting', 'retrying')")
                    .bind("paused", pausedMillis)
                    .bind("run", runId)
                    .execute();
            handle.createUpdate("UPDATE pipeline_approvals SET expires_at = expires_at + :paused WHERE run_id = :run "
                            + "AND status = 'pending'")
                    .bind("paused", pausedMillis)
                    .bind("run", runId)
                    .execute();
        }

        /** Whether this transition has ended the run. */
        public boolean endsRun() {
            return runEnded.isPresent();
        }

        /** Marks a step running for an attempt; false when it has finished already. */
        public boolean startStep(String stepId, int attempt) {
            return handle.createUpdate("UPDATE pipeline_run_steps SET status = 'running', attempts = :attempt, "
                                    + "started_at = COALESCE(started_at, :now), due_at = NULL, error = NULL WHERE run_id = :run "
                                    + "AND step_id = :step AND status IN ('pending', 'running', 'waiting', 'retrying')")
                            .bind("attempt", attempt)
                            .bind("now", now)
                            .bind("run", runId)
                            .bind("step", stepId)
                            .execute()
                    == 1;
        }

        /** Makes a waiting step due now: what it waits for has happened (its approval was answered). */
        public void dueNow(String stepId) {
            handle.createUpdate("UPDATE pipeline_run_steps SET due_at = NULL WHERE run_id = :run AND step_id = :step "
                            + "AND status = 'waiting'")
                    .bind("run", runId)
                    .bind("step", stepId)
                    .execute();
        }

        /** Parks a step until {@code dueAt}: waiting for a condition, or retrying after a failed attempt. */
        public void parkStep(
                String stepId, StepStatus status, long dueAt, OptionalLong waitDeadline, Optional<JsonNode> error) {
            handle.createUpdate("UPDATE pipeline_run_steps SET status = :status, due_at = :due, "
                            + "wait_deadline_at = COALESCE(wait_deadline_at, :deadline), error = :error "
                            + "WHERE run_id = :run AND step_id = :step")
                    .bind("status", status.json())
                    .bind("due", dueAt)
                    .bind("deadline", waitDeadline.isPresent() ? waitDeadline.getAsLong() : null)
                    .bind("error", error.map(Json::writeString).orElse(null))
                    .bind("run", runId)
                    .bind("step", stepId)
                    .execute();
        }

        /** Ends a step that has not ended yet; false when it had. */
        public boolean endStep(String stepId, StepStatus status, Optional<JsonNode> outputs, Optional<JsonNode> error) {
            boolean ended = handle.createUpdate("UPDATE pipeline_run_steps SET status = :status, outputs = :outputs, "
                                    + "error = :error, finished_at = :now, due_at = NULL WHERE run_id = :run AND step_id = :step "
                                    + "AND status NOT IN ('completed', 'failed', 'skipped', 'cancelled')")
                            .bind("status", status.json())
                            .bind("outputs", outputs.map(Json::writeString).orElse(null))
                            .bind("error", error.map(Json::writeString).orElse(null))
                            .bind("now", now)
                            .bind("run", runId)
                            .bind("step", stepId)
                            .execute()
                    == 1;
            if (ended) {
                stepsEnded.add(status);
            }
            return ended;
        }

        /** Ends every step not ended yet with {@code status}; returns their ids. */
        public List<String> endOpenSteps(StepStatus status, String why) {
            List<String> open = handle.createQuery("SELECT step_id FROM pipeline_run_steps WHERE run_id = :run "
                            + "AND status NOT IN ('completed', 'failed', 'skipped', 'cancelled') ORDER BY position")
                    .bind("run", runId)
                    .mapTo(String.class)
                    .list();
            for (String stepId : open) {
                endStep(stepId, status, Optional.empty(), Optional.empty());
                stepEvent(stepId, status, why);
            }
            return open;
        }

        /**
         * Starts this queued run if its pipeline has room under {@code maxConcurrentRuns}: fewer of its runs running
         * (or paused after they started) than that, counting the queued runs before this one (a higher priority, or
         * the same and older) as if they had started. True when the run may go on (started now, or already), false
         * when it waits. Admissions are one at a time: on SQLite its writes are, on PostgreSQL an advisory lock held
         * to the commit makes them so across servers, so two servers never both take the last place.
         */
        boolean admit(int maxConcurrentRuns, boolean acrossServers) {
            if (acrossServers) {
                handle.createQuery("SELECT 1 FROM (SELECT pg_advisory_xact_lock(:key)) AS admitted")
                        .bind("key", ADMISSION_LOCK)
                        .mapTo(Integer.class)
                        .one();
            }
            Queued self = handle.createQuery(
                            "SELECT pipeline_id, status, priority, created_at FROM pipeline_runs WHERE id = :id")
                    .bind("id", runId)
                    .map((rs, ctx) -> new Queued(
                            rs.getString("pipeline_id"),
                            rs.getString("status"),
                            rs.getInt("priority"),
                            rs.getLong("created_at")))
                    .one();
            if (!RunStatus.QUEUED.json().equals(self.status())) {
                return true;
            }
            int taken = handle.createQuery("SELECT COUNT(*) FROM pipeline_runs WHERE pipeline_id = :pipeline AND "
                            + "status IN ('running', 'paused') AND started_at IS NOT NULL")
                    .bind("pipeline", self.pipelineId())
                    .mapTo(Integer.class)
                    .one();
            int before = handle.createQuery("SELECT COUNT(*) FROM pipeline_runs WHERE pipeline_id = :pipeline AND "
                            + "status = 'queued' AND id <> :id AND (priority > :priority OR (priority = :priority "
                            + "AND (created_at < :created OR (created_at = :created AND id < :id))))")
                    .bind("pipeline", self.pipelineId())
                    .bind("id", runId)
                    .bind("priority", self.priority())
                    .bind("created", self.createdAt())
                    .mapTo(Integer.class)
                    .one();
            if (taken + before >= maxConcurrentRuns) {
                return false;
            }
            if (runStarted()) {
                runEvent(RunStatus.RUNNING, "The run started.");
            }
            return true;
        }

        /** What {@link #admit} reads of the run it admits. */
        private record Queued(String pipelineId, String status, int priority, long createdAt) {}

        /** Marks a queued run running; false when it was running already. */
        public boolean runStarted() {
            return handle.createUpdate("UPDATE pipeline_runs SET status = 'running', started_at = :now WHERE id = :id "
                                    + "AND status = 'queued'")
                            .bind("now", now)
                            .bind("id", runId)
                            .execute()
                    == 1;
        }

        public void endRun(RunStatus status, Optional<JsonNode> outputs, Optional<JsonNode> error) {
            handle.createUpdate("UPDATE pipeline_runs SET status = :status, outputs = :outputs, error = :error, "
                            + "finished_at = :now, paused_at = NULL WHERE id = :id")
                    .bind("status", status.json())
                    .bind("outputs", outputs.map(Json::writeString).orElse(null))
                    .bind("error", error.map(Json::writeString).orElse(null))
                    .bind("now", now)
                    .bind("id", runId)
                    .execute();
            runEnded = Optional.of(status);
        }

        /**
         * Opens a failed run again at a new generation: its failed and cancelled steps pending, everything else as
         * it was, and a new deadline.
         */
        public void reopen(int generation, long deadlineAt) {
            handle.createUpdate(
                            "UPDATE pipeline_runs SET status = 'running', generation = :generation, "
                                    + "error = NULL, outputs = NULL, finished_at = NULL, deadline_at = :deadline WHERE id = :id")
                    .bind("generation", generation)
                    .bind("deadline", deadlineAt)
                    .bind("id", runId)
                    .execute();
            handle.createUpdate("UPDATE pipeline_run_steps SET status = 'pending', attempts = 0, outputs = NULL, "
                            + "error = NULL, started_at = NULL, finished_at = NULL, due_at = NULL, "
                            + "wait_deadline_at = NULL WHERE run_id = :run AND status IN ('failed', 'cancelled')")
                    .bind("run", runId)
                    .execute();
        }

        public void runEvent(RunStatus status, String message) {
            record(new RunEvent.RunMoved(status, message));
        }

        public void stepEvent(String stepId, StepStatus status, String message) {
            record(new RunEvent.StepMoved(stepId, status, message));
        }

        public void logEvent(String stepId, String level, String message) {
            record(new RunEvent.Logged(stepId, level, message));
        }

        void record(RunEvent event) {
            RunEventCodec.Columns columns = RunEventCodec.columns(event);
            handle.createUpdate("INSERT INTO pipeline_run_events (run_id, at, kind, step_id, status, level, message) "
                            + "VALUES (:run, :at, :kind, :step, :status, :level, :message)")
                    .bind("run", runId)
                    .bind("at", now)
                    .bind("kind", columns.kind())
                    .bind("step", columns.stepId())
                    .bind("status", columns.status())
                    .bind("level", columns.level())
                    .bind("message", columns.message())
                    .execute();
        }
    }

    private static List<StepRun> steps(Handle handle, String runId) {
        return handle.createQuery("SELECT " + STEP_COLUMNS + " FROM pipeline_run_steps WHERE run_id = :run "
                        + "ORDER BY position")
                .bind("run", runId)
                .map(RunStore::step)
                .list();
    }

    private static Run run(ResultSet rs, List<StepRun> steps) throws SQLException {
        return run(rs, (ObjectNode) Json.read(rs.getString("definition")), steps);
    }

    private static Run run(ResultSet rs, ObjectNode definition, List<StepRun> steps) throws SQLException {
        return new Run(
                rs.getString("id"),
                rs.getString("pipeline_id"),
                rs.getInt("pipeline_version"),
                definition,
                (ObjectNode) Json.read(rs.getString("params")),
                (ObjectNode) Json.read(rs.getString("triggered_by")),
                RunStatus.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)),
                rs.getInt("generation"),
                json(rs, "outputs"),
                json(rs, "error"),
                rs.getInt("timeout_seconds"),
                rs.getLong("deadline_at"),
                rs.getLong("created_at"),
                millis(rs, "started_at"),
                millis(rs, "finished_at"),
                millis(rs, "paused_at"),
                Optional.ofNullable(rs.getString("replay_of")),
                rs.getInt("priority"),
                steps,
                Optional.ofNullable(rs.getString("trace_parent")));
    }

    private static StepRun step(ResultSet rs, StatementContext ctx) throws SQLException {
        return new StepRun(
                rs.getString("step_id"),
                rs.getInt("position"),
                StepStatus.valueOf(rs.getString("status").toUpperCase(Locale.ROOT)),
                rs.getInt("attempts"),
                json(rs, "outputs"),
                json(rs, "error"),
                millis(rs, "started_at"),
                millis(rs, "finished_at"),
                millis(rs, "due_at"),
                millis(rs, "wait_deadline_at"));
    }

    private static Optional<JsonNode> json(ResultSet rs, String column) throws SQLException {
        String text = rs.getString(column);
        return text == null ? Optional.empty() : Optional.of(Json.read(text));
    }

    /** A nullable whole-number column, such as a time that has not come yet. */
    static OptionalLong millis(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
    }
}
