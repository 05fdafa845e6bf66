package dev.arbor.pipelines.control;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.RunEngine;
import dev.arbor.pipelines.runs.RunnablePipelines;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.pipelines.runs.store.RunEvent;
import dev.arbor.pipelines.runs.store.RunEventCodec;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.pipelines.runs.store.RunStore.Run;
import dev.arbor.pipelines.runs.store.RunStore.RunStatus;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.EventStream;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The routes of runs: start one, read it and its events (also as a stream), cancel it, retry it. */
public final class RunRoutes {
    /** A run's params, checked against the pipeline's parameters by {@link PipelineDefinition#runParams}. */
    static final BodyField.Value PARAMS = BodyField.value(OPTIONAL, "params", Schema.mapOf(Schema.any()));

    private static final BodyField.Worded<Long> TIMEOUT_SECONDS = BodyField.integer(
                    OPTIONAL, "timeout_seconds", 1, PipelineDefinition.MAX_TIMEOUT_SECONDS)
            .refusedAs(PipelineDefinition.TIMEOUT_REFUSAL);
    private static final BodyField.Whole PRIORITY = BodyField.integer(
            OPTIONAL, "priority", -PipelineDefinition.PRIORITY_RANGE, PipelineDefinition.PRIORITY_RANGE);
    private static final BodySpec START = BodySpec.closed("a run", PARAMS, TIMEOUT_SECONDS, PRIORITY);
    private static final BodyField.Word<ApprovalStore.Status> DECISION = BodyField.word(
            REQUIRED,
            "decision",
            List.of(ApprovalStore.Status.APPROVED, ApprovalStore.Status.REJECTED),
            ApprovalStore.Status::json);
    private static final BodyField.Text COMMENT = BodyField.text(OPTIONAL, "comment", 2_000);
    private static final BodySpec ANSWER = BodySpec.closed("an approval's answer", DECISION, COMMENT);
    private static final QueryParam APPROVAL_STATUS = new QueryParam(
            "status",
            Schema.oneOf("pending", "approved", "rejected"),
            "Only questions in this status (default pending).");
    private static final BodyField.Text FROM_STEP = BodyField.text(OPTIONAL, "from_step", 200);
    private static final BodyField.Flag LATEST = BodyField.flag(OPTIONAL, "latest");
    private static final BodySpec REPLAY = BodySpec.closed("a replay", FROM_STEP, PARAMS, LATEST);
    private static final BodyField.Word<RunStatus> ENDED_STATUS = BodyField.word(
            OPTIONAL, "status", List.of(RunStatus.FAILED, RunStatus.CANCELLED, RunStatus.COMPLETED), RunStatus::json);
    private static final BodyField.Whole SINCE = BodyField.integer(OPTIONAL, "since", 0, 100_000_000_000L);
    private static final BodySpec REPLAY_ALL = BodySpec.closed("a bulk replay", ENDED_STATUS, SINCE);
    private static final int STREAM_BATCH = 500;

    private static final QueryParam STATUS =
            new QueryParam("status", ApiShapes.RUN_STATUS, "Only runs in this status.");
    private final RunnablePipelines pipelines;
    private final RunStore runs;
    private final RunEngine engine;
    private final RunControl control;
    private final EventStreams streams;

    public RunRoutes(
            RunnablePipelines pipelines, RunStore runs, RunEngine engine, ActionCatalog catalog, EventStreams streams) {
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.runs = requireNonNull(runs, "runs");
        this.engine = requireNonNull(engine, "engine");
        this.control = new RunControl(pipelines, runs, engine, catalog);
        this.streams = requireNonNull(streams, "streams");
    }

    public void addTo(Routes routes) {
        routes.group("pipelines")
                .post(
                        "/pipelines/{pipeline_id}/runs",
                        "Start a run; it is queued at once and runs in the background",
                        this::start)
                .body(START.schema())
                .accepted(ApiShapes.RUN)
                .get("/pipelines/{pipeline_id}/runs", "List a pipeline's runs, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .query(STATUS)
                .ok(Schema.list(ApiShapes.RUN))
                .get("/runs/{run_id}", "Get a run with each step's status, attempts, outputs and error", this::get)
                .ok(ApiShapes.RUN)
                .action("/runs/{run_id}/cancel", "Cancel a run that has not finished", this::cancel)
                .ok(ApiShapes.RUN)
                .action("/runs/{run_id}/retry", "Run a failed run again from the steps that failed", this::retry)
                .ok(ApiShapes.RUN)
                .action(
                        "/runs/{run_id}/pause",
                        "Pause a run: steps running now finish, no new step starts, and time paused does not count "
                                + "against its deadline or its steps' waits",
                        this::pause)
                .ok(ApiShapes.RUN)
                .action("/runs/{run_id}/resume", "Resume a paused run where it stood", this::resume)
                .ok(ApiShapes.RUN)
                .post(
                        "/runs/{run_id}/replay",
                        "Start a new run replaying an ended one from a step (default: its first failed step); the steps"
                                + " not after it keep their outputs and do not run",
                        this::replay)
                .body(REPLAY.schema())
                .accepted(ApiShapes.RUN)
                .post(
                        "/pipelines/{pipeline_id}/runs/replay",
                        "Replay each ended run of a pipeline in a status (default failed) created since a time, that no"
                                + " run replays yet: at most 100, oldest first, each from its first failed step",
                        this::replayAll)
                .body(REPLAY_ALL.schema())
                .accepted(Schema.list(ApiShapes.RUN))
                .post(
                        "/runs/{run_id}/steps/{step_id}/approval",
                        "Answer an approval step, as one of its approvers: approved lets the run go on, rejected fails"
                                + " the step; the first answer decides",
                        this::answer)
                .body(ANSWER.schema())
                .ok(ApiShapes.APPROVAL)
                .get(
                        "/approvals",
                        "The approval steps' questions the caller may answer, oldest first (status=pending by default)",
                        this::approvals)
                .query(APPROVAL_STATUS, PageParams.LIMIT)
                .ok(ApiShapes.APPROVALS)
                .get(
                        "/runs/{run_id}/events",
                        "A run's events: JSON pages, or a stream (Accept: text/event-stream)",
                        this::events)
                .query(PageParams.LIMIT, PageParams.AFTER)
                .ok(ApiShapes.EVENTS)
                .answers(200, "text/event-stream", Schema.string());
    }

    private void start(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = ctx.pathParam("pipeline_id");
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        BodyReader reader = START.reader(body);
        Run run = control.start(
                pipelineId,
                PARAMS.read(reader),
                TIMEOUT_SECONDS.read(reader),
                PRIORITY.read(reader),
                reader.problems());
        ctx.header("location", "/runs/" + run.id());
        Responses.json(ctx, 202, control.reply(run));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = ctx.pathParam("pipeline_id");
        pipelines.require(pipelineId);
        Optional<RunStatus> status = RunControl.statusFilter(STATUS.read(ctx));
        Responses.ok(
                ctx, Responses.page(runs.list(pipelineId, PageParams.from(ctx), status), Run::id, RunReply::listed));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, control.get(ctx.pathParam("run_id")));
    }

    private void cancel(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, control.cancel(ctx.pathParam("run_id")));
    }

    private void retry(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, control.retry(ctx.pathParam("run_id")));
    }

    private void answer(Context ctx) {
        Principal caller = Access.principal(ctx);
        BodyReader reader = ANSWER.reader(Requests.jsonObject(ctx));
        Optional<ApprovalStore.Status> decision = DECISION.read(reader);
        Optional<String> comment = COMMENT.read(reader);
        reader.problems().throwIfAny();
        Responses.ok(
                ctx,
                control.answer(
                        ctx.pathParam("run_id"), ctx.pathParam("step_id"), decision.orElseThrow(), caller, comment));
    }

    private void approvals(Context ctx) {
        Principal caller = Access.principal(ctx);
        ApprovalStore.Status status = APPROVAL_STATUS
                .read(ctx)
                .map(text -> Arrays.stream(ApprovalStore.Status.values())
                        .filter(s -> s.json().equals(text))
                        .findFirst()
                        .orElseThrow(() -> ApiException.of(
                                ErrorCode.INVALID_PARAMETER,
                                "status",
                                "`status` must be one of pending, approved, rejected.")))
                .orElse(ApprovalStore.Status.PENDING);
        List<ApprovalReply> shown =
                control.approvals(status, caller, PageParams.from(ctx).limit());
        Responses.ok(
                ctx, Responses.list(shown, shown.stream().map(ApprovalReply::id).toList(), false));
    }

    private void replay(Context ctx) {
        Access.requireAdmin(ctx);
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        BodyReader reader = REPLAY.reader(body);
        Run run = control.replay(
                ctx.pathParam("run_id"),
                FROM_STEP.read(reader),
                PARAMS.read(reader),
                LATEST.read(reader).orElse(false),
                reader.problems());
        ctx.header("location", "/runs/" + run.id());
        Responses.json(ctx, 202, control.reply(run));
    }

    private void replayAll(Context ctx) {
        Access.requireAdmin(ctx);
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        BodyReader reader = REPLAY_ALL.reader(body);
        RunStatus status = ENDED_STATUS.read(reader).orElse(RunStatus.FAILED);
        long since = SINCE.read(reader).orElse(0L);
        reader.problems().throwIfAny();
        List<Run> started = control.replayAll(ctx.pathParam("pipeline_id"), status, since);
        Responses.json(
                ctx,
                202,
                Responses.list(
                        started.stream().map(RunReply::listed).toList(),
                        started.stream().map(Run::id).toList(),
                        false));
    }

    private void pause(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, control.pause(ctx.pathParam("run_id")));
    }

    private void resume(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, control.resume(ctx.pathParam("run_id")));
    }

    /**
     * The run's events after {@code after} (or the {@code Last-Event-ID} a reconnecting stream sends): a JSON page,
     * or with {@code Accept: text/event-stream} a stream that follows the run until it ends.
     */
    private void events(Context ctx) throws IOException {
        Access.requireAdmin(ctx);
        Run run = control.require(ctx.pathParam("run_id"));
        String cursor = Optional.ofNullable(ctx.header("last-event-id"))
                .orElse(PageParams.AFTER.read(ctx).orElse(null));
        long after = 0;
        if (cursor != null) {
            try {
                after = Long.parseLong(cursor.trim());
            } catch (NumberFormatException e) {
                throw ApiException.of(ErrorCode.INVALID_PARAMETER, "after", "`after` must be the id of an event.");
            }
        }
        String accept = Optional.ofNullable(ctx.header("accept")).orElse("");
        if (!accept.contains("text/event-stream")) {
            int limit = PageParams.from(ctx).limit();
            List<RunEvent.Stored> page = runs.events(run.id(), after, limit + 1);
            boolean more = page.size() > limit;
            List<RunEvent.Stored> shown = more ? page.subList(0, limit) : page;
            Responses.ok(
                    ctx,
                    Responses.list(
                            shown.stream().map(RunEventCodec::reply).toList(),
                            shown.stream().map(e -> Long.toString(e.id())).toList(),
                            more));
            return;
        }
        stream(ctx, run.id(), after);
    }

    private void stream(Context ctx, String runId, long from) throws IOException {
        EventStream stream = streams.open(ctx);
        long after = from;
        try {
            while (stream.open()) {
                boolean finished =
                        !runs.find(runId).map(r -> r.status().active()).orElse(false);
                List<RunEvent.Stored> events = runs.events(runId, after, STREAM_BATCH);
                for (RunEvent.Stored event : events) {
                    RunEventCodec.Reply reply = RunEventCodec.reply(event);
                    stream.send(event.id(), reply.kind(), reply);
                    after = event.id();
                }
                if (finished && events.size() < STREAM_BATCH) {
                    stream.end();
                    return;
                }
                if (!events.isEmpty()) {
                    stream.flush();
                } else {
                    stream.keepAlive();
                }
                if (events.size() < STREAM_BATCH) {
                    engine.awaitChange(1_000);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away
        }
    }
}
