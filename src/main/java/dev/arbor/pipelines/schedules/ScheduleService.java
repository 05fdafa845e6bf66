package dev.arbor.pipelines.schedules;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.pipelines.control.RunControl;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.ScheduledRuns;
import dev.arbor.pipelines.runs.ScheduledRuns.Start;
import dev.arbor.pipelines.schedules.ScheduleStore.Schedule;
import dev.arbor.pipelines.schedules.ScheduleStore.Status;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;

/**
 * What the schedule routes ask of schedules, checked: a new schedule or a change (its cron in its time zone, its params
 * against the pipeline's parameters), pause and resume, run now and delete, each stored and its firing armed again.
 */
final class ScheduleService {
    private final ScheduledRuns runs;
    private final ScheduleStore schedules;
    private final ScheduleFirings firings;
    private final Clock clock;

    ScheduleService(ScheduledRuns runs, ScheduleStore schedules, ScheduleFirings firings, Clock clock) {
        this.runs = requireNonNull(runs, "runs");
        this.schedules = requireNonNull(schedules, "schedules");
        this.firings = requireNonNull(firings, "firings");
        this.clock = requireNonNull(clock, "clock");
    }

    /** A new schedule's fields as its body gave them. */
    record NewSchedule(
            Optional<String> name,
            Optional<String> cron,
            Optional<String> timezone,
            Optional<JsonNode> params,
            Optional<Boolean> enabled) {}

    /**
     * A change's fields as its body gave them: a field left out stays as it is. {@code timezoneSent}: a time zone sent
     * as null is UTC again; {@code enabledSent}: {@code enabled} is refused (it changes with pause and resume).
     */
    record Change(
            Optional<String> name,
            Optional<String> cron,
            Optional<String> timezone,
            boolean timezoneSent,
            Optional<JsonNode> params,
            boolean enabledSent) {}

    /** Creates a schedule of a pipeline (404 without one), adding what is wrong with it to {@code problems}. */
    Schedule create(String pipelineId, NewSchedule given, Problems problems) {
        requirePipeline(pipelineId);
        Optional<CronSchedule> cron = cron(given.cron(), given.timezone().orElse("UTC"), problems);
        String name = given.name().orElse(given.cron().orElse(""));
        ObjectNode params =
                params(pipelineId, given.params(), problems).orElseThrow(() -> pipelineNotFound(pipelineId));
        problems.throwIfAny();
        long now = clock.millis();
        Status status = given.enabled().orElse(true) ? Status.ACTIVE : Status.PAUSED;
        var schedule = new Schedule(
                Ids.next("sch"),
                pipelineId,
                name,
                cron.orElseThrow().expression(),
                cron.get().zone().getId(),
                params,
                status,
                1,
                next(cron.get(), status, now),
                OptionalLong.empty(),
                Optional.empty(),
                Optional.empty(),
                0,
                now,
                now);
        schedules.create(schedule);
        firings.arm(schedule);
        return schedule;
    }

    Schedule change(String id, Change given, Problems problems) {
        Schedule current = find(id);
        if (given.enabledSent()) {
            problems.add(ErrorCode.READ_ONLY_FIELD, "enabled", "`enabled` changes with pause and resume.");
        }
        Optional<String> expression = given.cron().or(() -> Optional.of(current.cron()));
        String zone = given.timezone().orElse(given.timezoneSent() ? "UTC" : current.timezone());
        Optional<CronSchedule> cron = cron(expression, zone, problems);
        ObjectNode params = given.params().isPresent()
                ? params(current.pipelineId(), given.params(), problems).orElseThrow(() -> notFound(current.id()))
                : current.params();
        problems.throwIfAny();
        return change(
                current,
                s -> s.with(
                        given.name().orElse(s.name()),
                        cron.orElseThrow().expression(),
                        cron.get().zone().getId(),
                        params,
                        s.status(),
                        next(cron.get(), s.status(), clock.millis())));
    }

    /** A schedule already there is answered as it stands; a resumed one is next due at its first time from now. */
    Schedule moveTo(String id, Status target) {
        Schedule current = find(id);
        if (current.status() == target) {
            return current;
        }
        return change(
                current,
                s -> s.with(
                        s.name(), s.cron(), s.timezone(), s.params(), target, next(cronOf(s), target, clock.millis())));
    }

    Schedule delete(String id) {
        Schedule schedule = find(id);
        schedules.delete(schedule.id());
        firings.disarm(schedule);
        return schedule;
    }

    /** Starts a run with the schedule's params now; its firing times stay as they are. Returns the run's id. */
    String runNow(Schedule schedule) {
        ObjectNode trigger = Json.object()
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("manual", true);
        trigger.putObject("event")
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("manual", true);
        return switch (runs.startScheduled(schedule.pipelineId(), schedule.params(), trigger, Optional.empty())) {
            case Start.Started run -> run.runId();
            case Start.Refused refused -> throw ApiException.of(refused.problems());
            // the schedule went with its pipeline
            case Start.NoPipeline gone -> throw notFound(schedule.id());
            case Start.Paused paused -> throw RunControl.pipelinePaused(schedule.pipelineId());
            case Start.AlreadyStarted repeat -> throw new IllegalStateException("a run now has no firing to repeat");
        };
    }

    ScheduleReply reply(Schedule schedule, int nextRuns) {
        return ScheduleReply.of(schedule, nextRuns, clock.millis());
    }

    /** How many next firing times to show: a whole number from 1 to 100, or 400 {@code invalid_parameter}. */
    static int nextRuns(Optional<String> text, int otherwise) {
        if (text.isEmpty()) {
            return otherwise;
        }
        int count;
        try {
            count = Integer.parseInt(text.get().trim());
        } catch (NumberFormatException e) {
            count = -1;
        }
        if (count < 1 || count > 100) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER, "count", "`count` must be a whole number from 1 " + "to 100.");
        }
        return count;
    }

    /** A pipeline's schedules, newest first; 404 without the pipeline. */
    Paging.Result<Schedule> list(String pipelineId, Page page) {
        requirePipeline(pipelineId);
        return schedules.list(pipelineId, page);
    }

    Schedule find(String id) {
        return schedules.find(id).orElseThrow(() -> notFound(id));
    }

    void requirePipeline(String pipelineId) {
        if (!runs.hasPipeline(pipelineId)) {
            throw pipelineNotFound(pipelineId);
        }
    }

    /** Stores a change and moves the armed firing to the schedule as it now is. */
    private Schedule change(Schedule current, UnaryOperator<Schedule> change) {
        Schedule changed = schedules.change(current.id(), change).orElseThrow(() -> notFound(current.id()));
        firings.disarm(current);
        firings.arm(changed);
        return changed;
    }

    private static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.SCHEDULE_NOT_FOUND, "schedule_id", "There is no schedule '" + id + "'.");
    }

    private static ApiException pipelineNotFound(String id) {
        return ApiException.of(ErrorCode.PIPELINE_NOT_FOUND, "pipeline_id", "There is no pipeline '" + id + "'.");
    }

    /** The cron expression in its time zone, when both are given and valid. */
    private static Optional<CronSchedule> cron(Optional<String> expression, String timezone, Problems problems) {
        ZoneId zone;
        try {
            zone = ZoneId.of(timezone);
        } catch (DateTimeException e) {
            PipelineDefinition.invalid(
                    problems,
                    "timezone",
                    "must be an IANA time zone such as Europe/Berlin " + "or UTC ('" + timezone + "' is not one)");
            return Optional.empty();
        }
        if (expression.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(CronSchedule.parse(expression.get(), zone));
        } catch (IllegalArgumentException e) {
            PipelineDefinition.invalid(
                    problems,
                    "cron",
                    "is not a cron expression of five fields (minute hour " + "day-of-month month day-of-week): "
                            + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Params checked against the pipeline's parameters now; they are checked again at every firing. Empty when there
     * is no such pipeline.
     */
    private Optional<ObjectNode> params(String pipelineId, Optional<JsonNode> given, Problems problems) {
        return runs.eventRunProblems(pipelineId, given.orElse(MissingNode.getInstance()))
                .map(found -> {
                    problems.addAll(found);
                    return given.filter(JsonNode::isObject)
                            .map(ObjectNode.class::cast)
                            .orElse(Json.object());
                });
    }

    private static CronSchedule cronOf(Schedule schedule) {
        return CronSchedule.parse(schedule.cron(), ZoneId.of(schedule.timezone()));
    }

    private static OptionalLong next(CronSchedule cron, Status status, long now) {
        if (status == Status.PAUSED) {
            return OptionalLong.empty();
        }
        return cron.next(Instant.ofEpochMilli(now))
                .map(i -> OptionalLong.of(i.toEpochMilli()))
                .orElse(OptionalLong.empty());
    }
}
