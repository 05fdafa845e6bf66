package dev.arbor.pipelines.schedules;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.pipelines.schedules.ScheduleStore.Schedule;
import dev.arbor.pipelines.schedules.ScheduleStore.Status;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
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
    private final ScheduleService service;

    ScheduleRoutes(ScheduleService service) {
        this.service = requireNonNull(service, "service");
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
        service.requirePipeline(pipelineId);
        BodyReader reader = NEW_SCHEDULE.reader(Requests.jsonObject(ctx));
        Schedule schedule = service.create(
                pipelineId,
                new ScheduleService.NewSchedule(
                        NAME.read(reader),
                        CRON.read(reader),
                        TIMEZONE.read(reader),
                        PARAMS.read(reader),
                        ENABLED.read(reader)),
                reader.problems());
        Responses.created(ctx, "/schedules/" + schedule.id(), service.reply(schedule, DEFAULT_NEXT_RUNS));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                Responses.page(
                        service.list(ctx.pathParam("pipeline_id"), PageParams.from(ctx)),
                        Schedule::id,
                        schedule -> service.reply(schedule, 1)));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        int count = ScheduleService.nextRuns(COUNT.read(ctx), DEFAULT_NEXT_RUNS);
        Responses.ok(ctx, service.reply(service.find(ctx.pathParam("schedule_id")), count));
    }

    private void patch(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("schedule_id");
        service.find(id);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = SCHEDULE_CHANGE.reader(body);
        var change = new ScheduleService.Change(
                NAME.read(reader),
                NEW_CRON.read(reader),
                TIMEZONE.read(reader),
                body.has(TIMEZONE.name()),
                PARAMS.read(reader),
                body.has(ENABLED.name()));
        Responses.ok(ctx, service.reply(service.change(id, change, reader.problems()), DEFAULT_NEXT_RUNS));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                new ScheduleReply.Deleted(
                        service.delete(ctx.pathParam("schedule_id")).id()));
    }

    private void pause(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx, service.reply(service.moveTo(ctx.pathParam("schedule_id"), Status.PAUSED), DEFAULT_NEXT_RUNS));
    }

    private void resume(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx, service.reply(service.moveTo(ctx.pathParam("schedule_id"), Status.ACTIVE), DEFAULT_NEXT_RUNS));
    }

    private void runNow(Context ctx) {
        Access.requireAdmin(ctx);
        Schedule schedule = service.find(ctx.pathParam("schedule_id"));
        String runId = service.runNow(schedule);
        ctx.header("location", "/runs/" + runId);
        Responses.json(ctx, 202, new ScheduleReply.Started(runId, schedule.id()));
    }
}
