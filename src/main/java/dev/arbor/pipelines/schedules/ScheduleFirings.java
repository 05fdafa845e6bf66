package dev.arbor.pipelines.schedules;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.kagkarlsson.scheduler.task.CompletionHandler;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.CustomTask;
import com.github.kagkarlsson.scheduler.task.helper.Tasks;
import dev.arbor.pipelines.runs.JsonTaskData;
import dev.arbor.pipelines.runs.ScheduledRuns;
import dev.arbor.pipelines.runs.ScheduledRuns.Start;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.pipelines.schedules.ScheduleStore.Schedule;
import dev.arbor.pipelines.schedules.ScheduleStore.Status;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.JobEngine;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * Fires schedules on db-scheduler, like pipelines' runs: a schedule's next firing is an execution in the database, so
 * it survives restarts and fires on one server among those on one PostgreSQL.
 */
final class ScheduleFirings implements AutoCloseable {
    private static final String SCHEDULE_TASK = "pipeline-schedule";
    /** The engine's own table (migration V48): its executions are the schedules' next firings, nothing else. */
    private static final String JOB_TABLE = "schedule_jobs";
    /** Schedules firing at once on this server. */
    private static final int PARALLEL_FIRINGS = 4;

    /** The next firing of a schedule at one generation (a change to the schedule makes a new one). */
    record ScheduleTask(String scheduleId, int generation, long fireAt) {
        String instance() {
            return scheduleId + "." + generation;
        }
    }

    private final Database database;
    private final ScheduleStore schedules;
    private final ScheduledRuns runs;
    private final Clock clock;
    private final CustomTask<ScheduleTask> scheduleTask;
    private final JobEngine engine;
    private volatile boolean started;

    ScheduleFirings(Database database, ScheduleStore schedules, ScheduledRuns runs, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.schedules = requireNonNull(schedules, "schedules");
        this.runs = requireNonNull(runs, "runs");
        this.clock = requireNonNull(clock, "clock");
        this.scheduleTask = Tasks.custom(SCHEDULE_TASK, ScheduleTask.class)
                .onFailure(new FailureHandler.ExponentialBackoffFailureHandler<>(Duration.ofSeconds(5), 2))
                .execute(this::fire);
        this.engine =
                new JobEngine(database, JOB_TABLE, PARALLEL_FIRINGS, new JsonTaskData(), clock, List.of(scheduleTask));
    }

    /** Starts firing, the firings missed while no server ran included; a database a newer release migrated is left. */
    void start() {
        if (database.readOnly()) {
            return;
        }
        started = true;
        engine.start();
    }

    /** Arms a schedule's next firing (a paused schedule, or one that never fires again, has none). */
    void arm(Schedule schedule) {
        if (schedule.status() == Status.ACTIVE && schedule.nextRunAt().isPresent()) {
            var data = new ScheduleTask(
                    schedule.id(), schedule.generation(), schedule.nextRunAt().getAsLong());
            engine.client()
                    .scheduleIfNotExists(
                            scheduleTask.instance(data.instance(), data), Instant.ofEpochMilli(data.fireAt()));
        }
    }

    /** Drops the firing armed for a schedule as it was (it would find the schedule changed and do nothing). */
    void disarm(Schedule before) {
        try {
            engine.client()
                    .cancel(scheduleTask.instanceId(new ScheduleTask(before.id(), before.generation(), 0).instance()));
        } catch (RuntimeException e) {
            // gone already, or firing now: it will find the schedule changed and do nothing
        }
    }

    /**
     * A schedule fires: it starts a run with its params (once per firing, however many nodes share the database)
     * and arms the next firing. A firing missed while no server ran is made up once, not once per missed time.
     */
    private CompletionHandler<ScheduleTask> fire(TaskInstance<ScheduleTask> instance, ExecutionContext context) {
        ScheduleTask task = instance.getData();
        Optional<Schedule> found = schedules
                .find(task.scheduleId())
                .filter(s -> s.generation() == task.generation() && s.status() == Status.ACTIVE);
        if (found.isEmpty()) {
            return new CompletionHandler.OnCompleteRemove<>();
        }
        Schedule schedule = found.get();
        ObjectNode trigger = Json.object()
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("scheduled_for", task.fireAt() / 1000);
        trigger.putObject("event")
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("scheduled_for", task.fireAt() / 1000);
        Start start = runs.startScheduled(
                schedule.pipelineId(),
                schedule.params(),
                trigger,
                Optional.of(new RunStore.Firing(schedule.id(), task.fireAt())));
        if (start instanceof Start.NoPipeline) {
            return new CompletionHandler.OnCompleteRemove<>();
        }
        // a firing that started its run already (on another node, or in an earlier try) is counted once
        Optional<String> runId =
                start instanceof Start.Started started ? Optional.of(started.runId()) : Optional.empty();
        Optional<String> error = switch (start) {
            case Start.Refused refused ->
                Optional.of("No run started: the schedule's params no longer fit the pipeline. "
                        + refused.problems().stream().map(Problem::message).collect(Collectors.joining(" ")));
            case Start.Paused paused ->
                Optional.of(
                        "Skipped: pipeline " + schedule.pipelineId() + " is paused, so this firing started no run.");
            case Start.Started started -> Optional.empty();
            case Start.AlreadyStarted repeat -> Optional.empty();
            case Start.NoPipeline gone -> Optional.empty();
        };
        long now = clock.millis();
        Optional<Instant> next = CronSchedule.parse(schedule.cron(), ZoneId.of(schedule.timezone()))
                .next(Instant.ofEpochMilli(Math.max(now, task.fireAt())));
        schedules.fired(
                schedule.id(),
                schedule.generation(),
                now,
                runId,
                error,
                next.map(n -> OptionalLong.of(n.toEpochMilli())).orElse(OptionalLong.empty()));
        if (next.isEmpty()) {
            return new CompletionHandler.OnCompleteRemove<>();
        }
        var again = new ScheduleTask(
                schedule.id(), schedule.generation(), next.get().toEpochMilli());
        return (complete, operations) -> operations.reschedule(complete, next.get(), again);
    }

    @Override
    public void close() {
        if (started) {
            engine.stop();
        }
    }
}
