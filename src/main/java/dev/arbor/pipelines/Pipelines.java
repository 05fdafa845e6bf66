package dev.arbor.pipelines;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.clusters.ClusterHealthChecks;
import dev.arbor.credentials.Credentials;
import dev.arbor.deployments.Deployments;
import dev.arbor.models.ModelOperations;
import dev.arbor.notifications.Notifications;
import dev.arbor.pipelines.actions.StepActions;
import dev.arbor.pipelines.control.ApprovalLinkRoutes;
import dev.arbor.pipelines.control.RunRoutes;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.pipelines.definitions.PipelineParams;
import dev.arbor.pipelines.definitions.StepUrls;
import dev.arbor.pipelines.runs.ApprovalLinks;
import dev.arbor.pipelines.runs.RunEngine;
import dev.arbor.pipelines.runs.ScheduledRuns;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import dev.arbor.pipelines.runs.store.RunMetrics;
import dev.arbor.pipelines.runs.store.RunStore;
import dev.arbor.pipelines.runs.store.RunStore.Firing;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.actions.ActionShapes;
import dev.arbor.platform.actions.Expressions;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.platform.tracing.Tracing;
import io.javalin.http.Context;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Pipelines: definitions (a checked graph of steps), the action catalog steps use, and their runs on a durable
 * engine. Admin routes: pipelines automate model and deployment operations.
 */
public final class Pipelines implements ScheduledRuns, AutoCloseable {
    private static final QueryParam AGAINST =
            new QueryParam("against", Schema.string(), "The version to compare with (default: the one before).");
    private final ActionCatalog catalog = ActionCatalog.load("/catalog/pipeline-actions.json");
    private final PipelineStore store;
    private final RunStore runs;
    private final RunEngine engine;
    private final RunRoutes runRoutes;
    private final PipelineWebhooks webhooks;

    /**
     * @param clusters what Cluster Health Check steps ask
     * @param streams where runs' event streams open
     * @param meters where runs and steps are counted as they end
     * @param secrets what seals pipelines' webhook secrets
     * @param publicUrl where callers reach this server, for webhook URLs
     * @param tracing where runs' traces go: each run is a trace, each step attempt a span of it
     */
    public Pipelines(
            Database database,
            Clock clock,
            OutboundClient outbound,
            Notifications notifications,
            ModelOperations models,
            Credentials credentials,
            ClusterHealthChecks clusters,
            Deployments deployments,
            EventStreams streams,
            MeterRegistry meters,
            SecretBox secrets,
            Supplier<String> publicUrl,
            Tracing tracing) {
        this.store = new PipelineStore(requireNonNull(database, "database"), clock);
        var metrics = new RunMetrics(meters);
        this.runs = new RunStore(database, clock, metrics);
        var expressions = new Expressions();
        var approvals = new ApprovalStore(database);
        this.engine = new RunEngine(
                database,
                store,
                runs,
                catalog,
                expressions,
                new StepActions(expressions, outbound, notifications, models, credentials, clusters, deployments),
                clock,
                metrics,
                tracing,
                approvals,
                new ApprovalLinks(
                        approvals, notifications, secrets.derive("pipelines/approval-links"), publicUrl, clock));
        this.runRoutes = new RunRoutes(store, runs, engine, catalog, streams);
        this.webhooks = new PipelineWebhooks(
                store, runs, engine, catalog, new WebhookSecretStore(database, secrets, clock), publicUrl, clock);
    }

    /** Starts running pipelines, going on with the runs a stopped server left unfinished. */
    public void start() {
        engine.start();
    }

    @Override
    public void close() {
        engine.close();
    }

    public void addRoutes(Routes routes) {
        routes.group("pipelines")
                .get(
                        "/pipelines/actions",
                        "The actions pipeline steps may use, by category, with their parameters",
                        this::actions)
                .ok(ActionShapes.CATALOG)
                .post("/pipelines/actions/validate", "Check params for one action", this::validateAction)
                .body(ActionShapes.ACTION_CHECK)
                .ok(ApiShapes.ACTION_VALIDATION)
                .post("/pipelines/validate", "Check a pipeline definition and list every problem", this::validate)
                .body(PipelineBody.SPEC.schema())
                .ok(ApiShapes.PIPELINE_VALIDATION)
                .post("/pipelines", "Create a pipeline", this::create)
                .body(PipelineBody.SPEC.schema())
                .created(ApiShapes.PIPELINE)
                .get("/pipelines", "List pipelines, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .ok(Schema.list(ApiShapes.PIPELINE))
                .get("/pipelines/{pipeline_id}", "Get a pipeline", this::get)
                .ok(ApiShapes.PIPELINE)
                .put("/pipelines/{pipeline_id}", "Replace a pipeline's definition (a new version)", this::replace)
                .body(PipelineBody.SPEC.schema())
                .ok(ApiShapes.PIPELINE)
                .delete(
                        "/pipelines/{pipeline_id}",
                        "Delete a pipeline and its schedules; its unfinished runs are " + "cancelled",
                        this::delete)
                .ok(Schema.deleted("pipeline"))
                .action(
                        "/pipelines/{pipeline_id}/pause",
                        "Pause a pipeline: no new run of it starts (its schedules' and triggers' firings are skipped, a"
                                + " run asked by hand is refused); its runs under way go on",
                        this::pause)
                .ok(ApiShapes.PIPELINE)
                .action(
                        "/pipelines/{pipeline_id}/resume",
                        "Resume a paused pipeline: new runs start again",
                        this::resume)
                .ok(ApiShapes.PIPELINE)
                .get(
                        "/pipelines/{pipeline_id}/versions",
                        "Every saved definition of a pipeline, newest first: each save is a version",
                        this::versions)
                .ok(ApiShapes.VERSIONS)
                .get(
                        "/pipelines/{pipeline_id}/versions/{version}/diff",
                        "What changed from one version of a pipeline's definition to another (by default the one"
                                + " before); steps are compared by id",
                        this::diff)
                .query(AGAINST)
                .ok(ApiShapes.VERSION_DIFF);
        runRoutes.addTo(routes);
        new ApprovalLinkRoutes(engine).addTo(routes);
        webhooks.addTo(routes);
    }

    private void actions(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, catalog.toJson());
    }

    private void validateAction(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, new PipelineReplies.ActionValidation(checkAction(Requests.jsonObject(ctx))));
    }

    private void validate(Context ctx) {
        Access.requireAdmin(ctx);
        PipelineBody.Read read = PipelineBody.read(Requests.jsonObject(ctx), catalog);
        Responses.ok(
                ctx,
                new PipelineReplies.PipelineValidation(ActionCatalog.errorsJson(read.problems()), read.stepCount()));
    }

    private void create(Context ctx) {
        Access.requireAdmin(ctx);
        PipelineDefinition definition = PipelineBody.checked(Requests.jsonObject(ctx), catalog);
        SubPipelines.check(definition, Optional.empty(), store);
        PipelineStore.Stored stored = store.create(definition);
        Responses.created(ctx, "/pipelines/" + stored.id(), PipelineReplies.PipelineReply.of(stored));
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx,
                Responses.page(
                        store.list(PageParams.from(ctx)), PipelineStore.Stored::id, PipelineReplies.PipelineReply::of));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, PipelineReplies.PipelineReply.of(store.require(ctx.pathParam("pipeline_id"))));
    }

    private void replace(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("pipeline_id");
        store.require(id);
        PipelineDefinition definition = PipelineBody.checked(Requests.jsonObject(ctx), catalog);
        SubPipelines.check(definition, Optional.of(id), store);
        Responses.ok(
                ctx,
                PipelineReplies.PipelineReply.of(
                        store.replace(id, definition).orElseThrow(() -> PipelineStore.notFound(id))));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("pipeline_id");
        if (!store.delete(id)) {
            throw PipelineStore.notFound(id);
        }
        for (String runId : runs.activeRunsOf(id)) {
            try {
                engine.cancel(runId);
            } catch (RunEngine.RunStateException e) {
                // it finished meanwhile
            }
        }
        Responses.ok(ctx, new PipelineReplies.Deleted(id));
    }

    private void versions(Context ctx) {
        Access.requireAdmin(ctx);
        String id = store.require(ctx.pathParam("pipeline_id")).id();
        List<PipelineReplies.VersionReply> versions = store.versions(id).stream()
                .map(PipelineReplies.VersionReply::of)
                .toList();
        Responses.ok(
                ctx,
                Responses.list(
                        versions,
                        versions.stream()
                                .map(v -> Integer.toString(v.version()))
                                .toList(),
                        false));
    }

    private void diff(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(
                ctx, VersionDiff.of(store, ctx.pathParam("pipeline_id"), ctx.pathParam("version"), AGAINST.read(ctx)));
    }

    private void pause(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("pipeline_id");
        Responses.ok(
                ctx, PipelineReplies.PipelineReply.of(store.pause(id).orElseThrow(() -> PipelineStore.notFound(id))));
    }

    private void resume(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("pipeline_id");
        Responses.ok(
                ctx, PipelineReplies.PipelineReply.of(store.resume(id).orElseThrow(() -> PipelineStore.notFound(id))));
    }

    /** The problems of one action's params, as the catalog and the pipelines' own rules (step URLs) find them. */
    private List<Map<String, Object>> checkAction(JsonNode body) {
        var problems = new Problems();
        catalog.checkRequest(body, problems, (action, params, prefix, found) -> {
            catalog.check(action, params, prefix, found, PipelineParams.RULES);
            StepUrls.check(action, params, prefix, found);
        });
        return ActionCatalog.errorsJson(problems);
    }

    @Override
    public boolean hasPipeline(String pipelineId) {
        return store.find(requireNonNull(pipelineId, "pipelineId")).isPresent();
    }

    /**
     * Checks params for runs of a pipeline that events (a trigger's, a schedule's firing) will start, as a run's own
     * params are checked: problems at {@code params.<name>}. Empty when there is no such pipeline.
     */
    @Override
    public Optional<List<Problem>> eventRunProblems(String pipelineId, JsonNode params) {
        return store.find(requireNonNull(pipelineId, "pipelineId")).map(pipeline -> {
            var problems = new Problems();
            PipelineDefinition.stored(pipeline.definition(), catalog).runParams(params, problems);
            return problems.list();
        });
    }

    /**
     * Starts a run of a pipeline for an event: {@code trigger.event} is what {@code {{ event.x }}} reads in its steps.
     * One run per {@code firingId}, however often it is asked: a repeat answers the run the first one started.
     */
    public EventRun startForEvent(String pipelineId, JsonNode params, ObjectNode trigger, String firingId) {
        // the firing takes a schedule's place in the key that lets a firing start one run
        var firing = new Firing(requireNonNull(firingId, "firingId"), 0);
        return switch (startScheduled(pipelineId, params, trigger, Optional.of(firing))) {
            case Start.Started started -> new EventRun.Started(started.runId());
            case Start.AlreadyStarted repeat ->
                new EventRun.Started(runs.runOf(firing).orElseThrow());
            case Start.Refused refused ->
                new EventRun.Refused("The params no longer fit the pipeline: "
                        + refused.problems().stream().map(Problem::message).collect(Collectors.joining(" ")));
            case Start.NoPipeline gone -> new EventRun.Refused("There is no pipeline '" + pipelineId + "' any more.");
            case Start.Paused paused ->
                new EventRun.Refused("Skipped: pipeline " + pipelineId + " is paused, so this firing started no run.");
        };
    }

    @Override
    public Start startScheduled(String pipelineId, JsonNode params, ObjectNode trigger, Optional<Firing> firing) {
        requireNonNull(trigger, "trigger");
        requireNonNull(firing, "firing");
        Optional<PipelineStore.Stored> pipeline = store.find(requireNonNull(pipelineId, "pipelineId"));
        if (pipeline.isEmpty()) {
            return new Start.NoPipeline();
        }
        if (pipeline.get().paused()) {
            return new Start.Paused();
        }
        PipelineDefinition definition = PipelineDefinition.stored(pipeline.get().definition(), catalog);
        var problems = new Problems();
        ObjectNode checked = definition.runParams(params, problems);
        if (!problems.isEmpty()) {
            return new Start.Refused(problems.list());
        }
        return engine.start(
                        pipeline.get(),
                        checked,
                        trigger,
                        definition.timeoutSeconds(),
                        OptionalInt.empty(),
                        firing.map(RunStore.Once.class::cast))
                .<Start>map(run -> new Start.Started(run.id()))
                .orElseGet(Start.AlreadyStarted::new);
    }

    /** What asking for a run for an event came to. */
    public sealed interface EventRun {
        record Started(String runId) implements EventRun {
            public Started {
                requireNonNull(runId, "runId");
            }
        }

        /** No run: the pipeline is gone, or its params no longer fit it. */
        record Refused(String reason) implements EventRun {
            public Refused {
                requireNonNull(reason, "reason");
            }
        }
    }
}
