package dev.arbor.pipelines.runs;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.runs.RunStore.Run;
import dev.arbor.pipelines.runs.RunStore.RunStatus;
import dev.arbor.pipelines.runs.RunStore.StepRun;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The routes of runs: start one, read it and its events (also as a stream), cancel it, retry it. */
public final class RunRoutes {
    /** A run's params, checked against the pipeline's parameters by {@link PipelineDefinition#runParams}. */
    static final BodyField.Value PARAMS = BodyField.value(OPTIONAL, "params", Schema.mapOf(Schema.any()));

    private static final BodyField.Worded<Long> TIMEOUT_SECONDS = BodyField.integer(
                    OPTIONAL, "timeout_seconds", 1, PipelineDefinition.MAX_TIMEOUT_SECONDS)
            .refusedAs(PipelineDefinition.TIMEOUT_REFUSAL);
    private static final BodySpec START = BodySpec.closed("a run", PARAMS, TIMEOUT_SECONDS);
    private static final int STREAM_BATCH = 500;

    private static final QueryParam STATUS =
            new QueryParam("status", ApiShapes.RUN_STATUS, "Only runs in this status.");
    private final RunnablePipelines pipelines;
    private final RunStore runs;
    private final RunEngine engine;
    private final ActionCatalog catalog;
    private final EventStreams streams;

    public RunRoutes(
            RunnablePipelines pipelines, RunStore runs, RunEngine engine, ActionCatalog catalog, EventStreams streams) {
        this.pipelines = requireNonNull(pipelines, "pipelines");
        this.runs = requireNonNull(runs, "runs");
        this.engine = requireNonNull(engine, "engine");
        this.catalog = requireNonNull(catalog, "catalog");
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
        RunnablePipelines.Pipeline pipeline = pipelines.require(pipelineId);
        ObjectNode body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        BodyReader reader = START.reader(body);
        Problems problems = reader.problems();
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.definition(), catalog);
        ObjectNode params = definition.runParams(PARAMS.read(reader).orElse(MissingNode.getInstance()), problems);
        int timeout = TIMEOUT_SECONDS.read(reader).map(Long::intValue).orElse(definition.timeoutSeconds());
        problems.throwIfAny();
        ObjectNode trigger = Json.object().put("type", "manual");
        trigger.putObject("event").put("type", "manual");
        Run run = engine.start(pipeline, params, trigger, timeout, Optional.empty())
                .orElseThrow();
        ctx.header("location", "/runs/" + run.id());
        Responses.json(ctx, 202, json(run, Optional.of(definition)));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        String pipelineId = ctx.pathParam("pipeline_id");
        pipelines.require(pipelineId);
        Optional<RunStatus> status = STATUS.read(ctx).map(text -> {
            try {
                return RunStatus.valueOf(text.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER,
                        "status",
                        "`status` must be one of queued, " + "running, completed, failed, cancelled.");
            }
        });
        Responses.ok(
                ctx,
                Responses.page(
                        runs.list(pipelineId, PageParams.from(ctx), status),
                        Run::id,
                        run -> json(run, Optional.empty())));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Run run = find(ctx.pathParam("run_id"));
        Responses.ok(ctx, json(run, Optional.of(PipelineDefinition.stored(run.definition(), catalog))));
    }

    private void cancel(Context ctx) {
        Access.requireAdmin(ctx);
        Run run = find(ctx.pathParam("run_id"));
        try {
            run = engine.cancel(run.id());
        } catch (RunEngine.RunStateException e) {
            throw ApiException.of(
                    ErrorCode.RUN_FINISHED,
                    "run_id",
                    "Run " + run.id() + " has finished (" + e.status.json()
                            + "); only a queued or running run can be cancelled.");
        }
        Responses.ok(ctx, json(run, Optional.of(PipelineDefinition.stored(run.definition(), catalog))));
    }

    private void retry(Context ctx) {
        Access.requireAdmin(ctx);
        Run run = find(ctx.pathParam("run_id"));
        try {
            run = engine.retry(run.id());
        } catch (RunEngine.RunStateException e) {
            throw ApiException.of(
                    ErrorCode.RUN_NOT_FAILED,
                    "run_id",
                    "Run " + run.id() + " is " + e.status.json() + "; only a failed run can be retried.");
        }
        Responses.ok(ctx, json(run, Optional.of(PipelineDefinition.stored(run.definition(), catalog))));
    }

    /**
     * The run's events after {@code after} (or the {@code Last-Event-ID} a reconnecting stream sends): a JSON page,
     * or with {@code Accept: text/event-stream} a stream that follows the run until it ends.
     */
    private void events(Context ctx) throws IOException {
        Access.requireAdmin(ctx);
        Run run = find(ctx.pathParam("run_id"));
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
            List<RunStore.Event> page = runs.events(run.id(), after, limit + 1);
            boolean more = page.size() > limit;
            List<RunStore.Event> shown = more ? page.subList(0, limit) : page;
            Responses.ok(
                    ctx,
                    Responses.list(
                            shown.stream().map(RunRoutes::json).toList(),
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
                List<RunStore.Event> events = runs.events(runId, after, STREAM_BATCH);
                for (RunStore.Event event : events) {
                    stream.send(event.id(), event.kind(), json(event));
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

    private Run find(String runId) {
        return runs.find(runId)
                .orElseThrow(
                        () -> ApiException.of(ErrorCode.RUN_NOT_FOUND, "run_id", "There is no run '" + runId + "'."));
    }

    /** A run as the API shows it; with its definition, each step with its name and action. */
    private static Map<String, Object> json(Run run, Optional<PipelineDefinition> definition) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", run.id());
        json.put("object", "pipeline.run");
        json.put("pipeline_id", run.pipelineId());
        json.put("pipeline_version", run.pipelineVersion());
        json.put("status", run.status().json());
        json.put("params", run.params());
        json.put("trigger", run.trigger());
        json.put("outputs", run.outputs().orElse(null));
        json.put("error", run.error().orElse(null));
        json.put("timeout_seconds", run.timeoutSeconds());
        json.put("created_at", run.createdAt() / 1000);
        Json.putSeconds(json, "started_at", run.startedAt());
        Json.putSeconds(json, "finished_at", run.finishedAt());
        json.put("deadline_at", run.deadlineAt() / 1000);
        definition.ifPresent(d -> {
            long finished =
                    run.steps().stream().filter(s -> s.status().finished()).count();
            json.put(
                    "progress",
                    Map.of(
                            "finished_steps",
                            finished,
                            "total_steps",
                            run.steps().size()));
            json.put(
                    "steps",
                    run.steps().stream()
                            .map(step -> stepJson(step, d.step(step.id())))
                            .toList());
        });
        return json;
    }

    private static Map<String, Object> stepJson(StepRun step, PipelineDefinition.Step definition) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", step.id());
        json.put("name", definition.name());
        json.put("action", definition.action());
        json.put("status", step.status().json());
        json.put("attempts", step.attempts());
        json.put("outputs", step.outputs().orElse(null));
        json.put("error", step.error().orElse(null));
        Json.putSeconds(json, "started_at", step.startedAt());
        Json.putSeconds(json, "finished_at", step.finishedAt());
        json.put(
                "duration_ms",
                step.startedAt().isPresent() && step.finishedAt().isPresent()
                        ? step.finishedAt().getAsLong() - step.startedAt().getAsLong()
                        : null);
        Json.putSeconds(json, "next_attempt_at", step.dueAt());
        return json;
    }

    private static Map<String, Object> json(RunStore.Event event) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", event.id());
        json.put("object", "pipeline.run.event");
        json.put("run_id", event.runId());
        json.put("kind", event.kind());
        json.put("step_id", event.stepId().orElse(null));
        json.put("status", event.status().orElse(null));
        json.put("level", event.level().orElse(null));
        json.put("message", event.message());
        json.put("created_at", event.at() / 1000);
        return json;
    }
}
