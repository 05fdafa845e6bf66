package dev.arbor.pipelines.schedules;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.ScheduledRuns;
import dev.arbor.pipelines.runs.ScheduledRuns.Start;
import dev.arbor.pipelines.schedules.ScheduleStore.Schedule;
import dev.arbor.pipelines.schedules.ScheduleStore.Status;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * Schedules of a pipeline: a cron expression in a time zone and the params its runs get; pause, resume, run now, and
 * the next firing times (with their local times, to see what a daylight-saving change does).
 */
final class ScheduleRoutes {
    private static final String CRON_REFUSAL = "must be a cron expression of five fields";
    private static final BodyField.Worded<String> CRON = BodyField.text(REQUIRED, "cron", 200)
            .refusedAs(CRON_REFUSAL)
            .missingAs("is required: five fields, minute hour day-of-month month day-of-week, "
                    + "such as \"30 2 * * *\"");
    private static final BodyField.Worded<String> NEW_CRON =
            BodyField.text(OPTIONAL, "cron", 200).refusedAs(CRON_REFUSAL);
    private static final BodyField.Worded<String> TIMEZONE = BodyField.text(OPTIONAL, "timezone", 100)
            .refusedAs("must be an IANA time zone such as Europe/Berlin or UTC");
    private static final BodyField.Worded<String> NAME = BodyField.text(OPTIONAL, "name", 200)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), "must not be blank")
            .refusedAs("must be a non-empty string of at most 200 characters");
    /** The params of the schedule's runs, checked against the pipeline's parameters as a run's own. */
    private static final BodyField.Value PARAMS = BodyField.value(OPTIONAL, "params", Schema.mapOf(Schema.any()));

    private static final BodyField.Flag ENABLED = BodyField.flag(OPTIONAL, "enabled");
    private static final BodySpec NEW_SCHEDULE = BodySpec.closed("a schedule", NAME, CRON, TIMEZONE, PARAMS, ENABLED);
    /** {@code enabled} is the schedule's, refused here: it changes with pause and resume. */
    private static final BodySpec SCHEDULE_CHANGE =
            BodySpec.closed("a schedule", NAME, NEW_CRON, TIMEZONE, PARAMS, ENABLED);

    private static final int DEFAULT_NEXT_RUNS = 5;

    private static final QueryParam COUNT =
            new QueryParam("count", Schema.integer(1, 100), "How many next firing times to list.");
    private final ScheduledRuns runs;
    private final ScheduleStore schedules;
    private final ScheduleFirings firings;
    private final Clock clock;

    ScheduleRoutes(ScheduledRuns runs, ScheduleStore schedules, ScheduleFirings firings, Clock clock) {
        this.runs = requireNonNull(runs, "runs");
        this.schedules = requireNonNull(schedules, "schedules");
        this.firings = requireNonNull(firings, "firings");
        this.clock = requireNonNull(clock, "clock");
    }

    void addTo(Routes routes) {
        routes.group("pipelines")
                .post(
                        "/pipelines/{pipeline_id}/schedules",
                        "Schedule runs of a pipeline with cron in a time zone",
                        this::create)
                .body(NEW_SCHEDULE.schema())
                .created(ApiShapes.SCHEDULE)
                .get("/pipelines/{pipeline_id}/schedules", "List a pipeline's schedules", this::list)
                .query(PageParams.PARAMETERS)
                .ok(Schema.list(ApiShapes.SCHEDULE))
                .get(
                        "/schedules/{schedule_id}",
                        "Get a schedule with its next firing times (count=N, at most 100)",
                        this::get)
                .query(COUNT)
                .ok(ApiShapes.SCHEDULE)
                .patch("/schedules/{schedule_id}", "Change a schedule's name, cron, time zone or params", this::patch)
                .body(SCHEDULE_CHANGE.schema())
                .ok(ApiShapes.SCHEDULE)
                .delete("/schedules/{schedule_id}", "Delete a schedule", this::delete)
                .ok(Schema.deleted("pipeline.schedule"))
                .action(
                        "/schedules/{schedule_id}/pause",
                        "Pause a schedule: it fires no more until resumed",
                        this::pause)
                .ok(ApiShapes.SCHEDULE)
                .action("/schedules/{schedule_id}/resume", "Resume a paused schedule from now", this::resume)
                .ok(ApiShapes.SCHEDULE)
                .action(
                        "/schedules/{schedule_id}/run",
                        "Start a run with the schedule's params now; its firing " + "times stay as they are",
                        this::runNow)
                .accepted(ApiShapes.STARTED);
    }

    private void create(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = ctx.pathParam("pipeline_id");
        requirePipeline(pipelineId);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = NEW_SCHEDULE.reader(body);
        Problems problems = reader.problems();
        Optional<String> expression = CRON.read(reader);
        Optional<CronSchedule> cron = cron(expression, TIMEZONE.read(reader).orElse("UTC"), problems);
        String name = NAME.read(reader).orElse(expression.orElse(""));
        ObjectNode params =
                params(pipelineId, PARAMS.read(reader), problems).orElseThrow(() -> pipelineNotFound(pipelineId));
        boolean enabled = ENABLED.read(reader).orElse(true);
        problems.throwIfAny();
        long now = clock.millis();
        Status status = enabled ? Status.ACTIVE : Status.PAUSED;
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
        Responses.created(ctx, "/schedules/" + schedule.id(), json(schedule, DEFAULT_NEXT_RUNS));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = ctx.pathParam("pipeline_id");
        requirePipeline(pipelineId);
        Responses.ok(
                ctx,
                Responses.page(
                        schedules.list(pipelineId, PageParams.from(ctx)), Schedule::id, schedule -> json(schedule, 1)));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        int count = DEFAULT_NEXT_RUNS;
        String text = COUNT.read(ctx).orElse(null);
        if (text != null) {
            try {
                count = Integer.parseInt(text.trim());
            } catch (NumberFormatException e) {
                count = -1;
            }
            if (count < 1 || count > 100) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER, "count", "`count` must be a whole number from 1 " + "to 100.");
            }
        }
        Responses.ok(ctx, json(find(ctx.pathParam("schedule_id")), count));
    }

    private void patch(Context ctx) {
        Access.requireAdmin(ctx);
        Schedule current = find(ctx.pathParam("schedule_id"));
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = SCHEDULE_CHANGE.reader(body);
        Problems problems = reader.problems();
        if (body.has(ENABLED.name())) {
            problems.add(ErrorCode.READ_ONLY_FIELD, "enabled", "`enabled` changes with pause and resume.");
        }
        Optional<String> name = NAME.read(reader);
        Optional<String> expression = NEW_CRON.read(reader).or(() -> Optional.of(current.cron()));
        // a null time zone is UTC again; a time zone left out stays as it is
        String zone = TIMEZONE.read(reader).orElse(body.has(TIMEZONE.name()) ? "UTC" : current.timezone());
        Optional<CronSchedule> cron = cron(expression, zone, problems);
        Optional<JsonNode> given = PARAMS.read(reader);
        ObjectNode params = given.isPresent()
                ? params(current.pipelineId(), given, problems).orElseThrow(() -> notFound(current.id()))
                : current.params();
        problems.throwIfAny();
        Schedule changed = change(
                current,
                s -> s.with(
                        name.orElse(s.name()),
                        cron.orElseThrow().expression(),
                        cron.get().zone().getId(),
                        params,
                        s.status(),
                        next(cron.get(), s.status(), clock.millis())));
        Responses.ok(ctx, json(changed, DEFAULT_NEXT_RUNS));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Schedule schedule = find(ctx.pathParam("schedule_id"));
        schedules.delete(schedule.id());
        firings.disarm(schedule);
        Responses.ok(ctx, Map.of("id", schedule.id(), "object", "pipeline.schedule.deleted", "deleted", true));
    }

    private void pause(Context ctx) {
        moveTo(ctx, Status.PAUSED);
    }

    private void resume(Context ctx) {
        moveTo(ctx, Status.ACTIVE);
    }

    /** A schedule already there is answered as it stands; a resumed one is next due at its first time from now. */
    private void moveTo(Context ctx, Status target) {
        Access.requireAdmin(ctx);
        Schedule current = find(ctx.pathParam("schedule_id"));
        Schedule moved = current.status() == target
                ? current
                : change(
                        current,
                        s -> s.with(
                                s.name(),
                                s.cron(),
                                s.timezone(),
                                s.params(),
                                target,
                                next(cronOf(s), target, clock.millis())));
        Responses.ok(ctx, json(moved, DEFAULT_NEXT_RUNS));
    }

    private void runNow(Context ctx) {
        Access.requireAdmin(ctx);
        Schedule schedule = find(ctx.pathParam("schedule_id"));
        ObjectNode trigger = Json.object()
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("manual", true);
        trigger.putObject("event")
                .put("type", "schedule")
                .put("schedule_id", schedule.id())
                .put("manual", true);
        String runId = switch (runs.startScheduled(
                schedule.pipelineId(), schedule.params(), trigger, Optional.empty())) {
            case Start.Started run -> run.runId();
            case Start.Refused refused -> throw ApiException.of(refused.problems());
            // the schedule went with its pipeline
            case Start.NoPipeline gone -> throw notFound(schedule.id());
            case Start.AlreadyStarted repeat -> throw new IllegalStateException("a run now has no firing to repeat");
        };
        ctx.header("location", "/runs/" + runId);
        Responses.json(
                ctx,
                202,
                Map.of(
                        "id",
                        runId,
                        "object",
                        "pipeline.run",
                        "status",
                        // a run starts queued
                        "queued",
                        "schedule_id",
                        schedule.id()));
    }

    /** Stores a change and moves the armed firing to the schedule as it now is. */
    private Schedule change(Schedule current, java.util.function.UnaryOperator<Schedule> change) {
        Schedule changed = schedules.change(current.id(), change).orElseThrow(() -> notFound(current.id()));
        firings.disarm(current);
        firings.arm(changed);
        return changed;
    }

    private Schedule find(String id) {
        return schedules.find(id).orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.SCHEDULE_NOT_FOUND, "schedule_id", "There is no schedule '" + id + "'.");
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

    private void requirePipeline(String pipelineId) {
        if (!runs.hasPipeline(pipelineId)) {
            throw pipelineNotFound(pipelineId);
        }
    }

    private static ApiException pipelineNotFound(String id) {
        return ApiException.of(ErrorCode.PIPELINE_NOT_FOUND, "pipeline_id", "There is no pipeline '" + id + "'.");
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

    private Map<String, Object> json(Schedule schedule, int nextRuns) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", schedule.id());
        json.put("object", "pipeline.schedule");
        json.put("pipeline_id", schedule.pipelineId());
        json.put("name", schedule.name());
        json.put("cron", schedule.cron());
        json.put("timezone", schedule.timezone());
        json.put("params", schedule.params());
        json.put("status", schedule.status().json());
        Json.putSeconds(json, "next_run_at", schedule.nextRunAt());
        Json.putSeconds(json, "last_run_at", schedule.lastRunAt());
        json.put("last_run_id", schedule.lastRunId().orElse(null));
        json.put("last_error", schedule.lastError().orElse(null));
        json.put("run_count", schedule.runCount());
        CronSchedule cron = cronOf(schedule);
        json.put(
                "next_runs",
                schedule.status() == Status.PAUSED
                        ? java.util.List.of()
                        : cron
                                .next(Instant.ofEpochMilli(schedule.nextRunAt().orElse(clock.millis()) - 1), nextRuns)
                                .stream()
                                .map(at -> Map.of(
                                        "at",
                                        at.getEpochSecond(),
                                        "local",
                                        at.atZone(cron.zone())
                                                .toOffsetDateTime()
                                                .toString()))
                                .toList());
        json.put("created_at", schedule.createdAt() / 1000);
        json.put("updated_at", schedule.updatedAt() / 1000);
        return json;
    }
}
