package dev.arbor.routers;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.actions.ActionShapes;
import dev.arbor.platform.db.Paging;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
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
import dev.arbor.platform.references.Referrers;
import io.javalin.http.Context;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The routes of routers, in the current project: members see, make and change only their own projects' routers
 * (another project's router is not found, and no list counts it). Every save checks the whole graph with the same
 * code as {@code POST /routers/validate} (and each step's params as {@code POST /routers/actions/validate}); a router
 * ends active unless the save says draft or inactive, and only a complete graph may be active (a draft's gaps come
 * back as warnings).
 */
final class RouterRoutes {
    static final String ROUTER_ID = "router_id";
    private static final int MAX_TAGS = 20;
    private static final List<String> STATUSES =
            Arrays.stream(RouterStatus.values()).map(RouterStatus::wire).toList();

    private static final BodyField<String> PROJECT_ID = BodyField.text(OPTIONAL, CurrentProject.FIELD, 100);
    private static final String NAME_REFUSAL = "must be a non-empty string of at most 200 characters";
    private static final BodyField<String> NAME = BodyField.text(REQUIRED, "name", 200)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), NAME_REFUSAL)
            .refusedAs(NAME_REFUSAL);
    private static final BodyField<String> OPTIONAL_NAME = BodyField.text(OPTIONAL, "name", 200)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), NAME_REFUSAL)
            .refusedAs(NAME_REFUSAL);
    private static final BodyField<String> DESCRIPTION = BodyField.text(OPTIONAL, "description", 2_000);
    private static final BodyField<List<String>> TAGS = BodyField.texts(OPTIONAL, "tags", MAX_TAGS, 50);
    private static final BodyField<String> ICON = BodyField.text(OPTIONAL, "icon", 100);
    private static final BodyField<String> STATUS =
            BodyField.choice(OPTIONAL, "status", STATUSES, "must be one of " + String.join(", ", STATUSES));
    private static final BodyField<JsonNode> DAG_CONFIG = BodyField.value(OPTIONAL, "dag_config", ApiShapes.DAG_CONFIG);

    static final BodySpec CREATE =
            BodySpec.closed("a router", PROJECT_ID, NAME, DESCRIPTION, TAGS, ICON, STATUS, DAG_CONFIG);
    private static final BodyField<JsonNode> SAVED_DAG_CONFIG =
            BodyField.value(REQUIRED, DAG_CONFIG.name(), ApiShapes.DAG_CONFIG);
    static final BodySpec SAVE = BodySpec.closed(
            "a router's save", PROJECT_ID, OPTIONAL_NAME, DESCRIPTION, TAGS, ICON, STATUS, SAVED_DAG_CONFIG);
    /** What a save would be checked as, without a router: the graph, and the status it would be saved in. */
    static final BodySpec GRAPH_CHECK = BodySpec.closed("a router graph's check", PROJECT_ID, STATUS, SAVED_DAG_CONFIG);

    static final BodySpec CHANGE =
            BodySpec.closed("a router's change", PROJECT_ID, OPTIONAL_NAME, DESCRIPTION, TAGS, ICON, STATUS);

    private static final QueryParam PROJECT_QUERY = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's routers (X-Project-Id when left out); without either, every router the token may "
                    + "see.");
    private static final QueryParam STATUS_QUERY =
            new QueryParam("status", Schema.oneOf(STATUSES.toArray(String[]::new)), "Only routers in this state.");
    private static final QueryParam NAME_QUERY =
            new QueryParam("q", Schema.string(200), "Only routers whose name holds this text (any case).");
    private static final QueryParam TAGS_QUERY =
            new QueryParam("tags", Schema.string(), "Only routers with every one of these tags (comma-separated).");

    private static final QueryParam SINCE_QUERY =
            new QueryParam("since", Schema.integer(0, Long.MAX_VALUE), "Requests from this moment on (Unix seconds).");
    private static final Duration DEFAULT_STATS_PERIOD = Duration.ofDays(1);

    private final RouterStore store;
    private final RouterCatalog catalog;
    private final RouterChecks checks;
    private final Access access;
    private final RouterTelemetry telemetry;
    private final Steps steps;

    /** What the routes read of the routers' steps at work: the answers their caches keep, and their counts. */
    record Steps(RouterCaches caches, StepCounts counts) {
        Steps {
            requireNonNull(caches, "caches");
            requireNonNull(counts, "counts");
        }
    }

    RouterRoutes(
            RouterStore store,
            RouterCatalog catalog,
            RouterChecks checks,
            Access access,
            RouterTelemetry telemetry,
            Steps steps) {
        this.store = requireNonNull(store, "store");
        this.catalog = requireNonNull(catalog, "catalog");
        this.checks = requireNonNull(checks, "checks");
        this.access = requireNonNull(access, "access");
        this.telemetry = requireNonNull(telemetry, "telemetry");
        this.steps = requireNonNull(steps, "steps");
    }

    void addTo(Routes routes) {
        routes.group("routers")
                .get(
                        "/routers/actions",
                        "The actions router steps may use, by category, with their parameters",
                        this::actions)
                .ok(ActionShapes.CATALOG)
                .post(
                        "/routers/actions/validate",
                        "Check one action's params as a save would (references too)",
                        this::validateAction)
                .body(ActionShapes.ACTION_CHECK)
                .ok(ApiShapes.ACTION_VALIDATION)
                .post(
                        "/routers/validate",
                        "Check a whole dag_config as a save in the given status would (active when left out), "
                                + "saving nothing",
                        this::validateGraph)
                .body(GRAPH_CHECK.schema())
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.GRAPH_VALIDATION)
                .post(
                        "/routers",
                        "Create a router in the current project (active when it carries a complete dag_config)",
                        this::create)
                .body(CREATE.schema())
                .header(CurrentProject.HEADER)
                .created(ApiShapes.ROUTER_SAVED)
                .get("/routers", "The routers of the current project, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .query(PROJECT_QUERY, STATUS_QUERY, NAME_QUERY, TAGS_QUERY)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.ROUTER))
                .get(
                        "/routers/{router_id}",
                        "A router with its graph, and what keeps the graph from serving as it stands",
                        this::get)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.ROUTER_SAVED)
                .put(
                        "/routers/{router_id}",
                        "Save a router's graph with its fields: the whole graph is checked, and the router ends "
                                + "active unless the body says draft or inactive",
                        this::save)
                .body(SAVE.schema())
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.ROUTER_SAVED)
                .patch(
                        "/routers/{router_id}",
                        "Change a router's name, description, tags, icon or status (active checks the graph)",
                        this::change)
                .body(CHANGE.schema())
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.ROUTER_SAVED)
                .get(
                        "/routers/{router_id}/versions",
                        "The graphs a router's saves replaced, newest first",
                        this::versions)
                .query(PageParams.PARAMETERS)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.VERSION))
                .get(
                        "/routers/{router_id}/health",
                        "How the endpoints the router names have been answering on this server",
                        this::health)
                .header(CurrentProject.HEADER)
                .ok(object().required("object", oneOf("list")).required("data", arrayOf(object())))
                .get(
                        "/routers/{router_id}/stats",
                        "What the router's requests came to since a moment (the last 24 hours when left out)",
                        this::stats)
                .query(SINCE_QUERY)
                .header(CurrentProject.HEADER)
                .ok(object().required("router_id", string())
                        .required("requests", integer(0, Long.MAX_VALUE))
                        .required(
                                "cache",
                                object().required("hits", integer(0, Long.MAX_VALUE))
                                        .required("semantic_hits", integer(0, Long.MAX_VALUE))
                                        .required("misses", integer(0, Long.MAX_VALUE))
                                        .required("hit_rate", Schema.number())
                                        .required("saved_tokens", integer(0, Long.MAX_VALUE)))
                        .required(
                                "step_counts",
                                arrayOf(object().required("step_id", string())
                                        .required("name", string())
                                        .required("count", integer(0, Long.MAX_VALUE)))))
                .delete(
                        "/routers/{router_id}/cache",
                        "Empty the answers the router's cache steps keep (every scope: projects and keys)",
                        this::clearCache)
                .header(CurrentProject.HEADER)
                .ok(object().required("router_id", string())
                        .required("object", oneOf("router.cache.cleared"))
                        .required("deleted", integer(0, Integer.MAX_VALUE)))
                .delete("/routers/{router_id}", "Delete a router and its versions", this::delete)
                .header(CurrentProject.HEADER)
                .ok(Schema.deleted("router"));
    }

    private void actions(Context ctx) {
        Responses.ok(ctx, catalog.toJson());
    }

    private void validateAction(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        // no router yet: a deployment is looked for in the project X-Project-Id names, else in any the caller may act
        // in (the check adds that); the header refuses nothing here, a project the caller may not use finds none
        Optional<String> named = CurrentProject.HEADER.read(ctx);
        Predicate<String> projects = project -> named.map(project::equals).orElse(true);
        Problems problems = checks.action(body, checker(ctx, projects));
        Responses.ok(ctx, RouterReplies.Validation.of("action.validation", problems, List.of()));
    }

    /**
     * A save's checks of a graph, for an editor to run as the user types: a body that is no such request is 400 like
     * a save's; what is wrong with the graph is the answer, with the params a save would name.
     */
    private void validateGraph(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = GRAPH_CHECK.reader(body);
        Problems refused = reader.problems();
        ProjectId project = access.currentProject().required(ctx, PROJECT_ID.read(reader));
        RouterStatus status = STATUS.read(reader).flatMap(RouterStatus::of).orElse(RouterStatus.ACTIVE);
        Optional<JsonNode> dag = SAVED_DAG_CONFIG.read(reader);
        refused.throwIfAny();
        var problems = new Problems();
        List<Warning> warnings =
                checks.graph(dag.orElseThrow(), status, problems, checker(ctx, project.value()::equals));
        Responses.ok(ctx, RouterReplies.Validation.of("router.validation", problems, warnings));
    }

    private void create(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CREATE.reader(body);
        Problems problems = reader.problems();
        ProjectId project = access.currentProject().required(ctx, PROJECT_ID.read(reader));
        Optional<String> name = NAME.read(reader).map(String::strip);
        Optional<String> description = DESCRIPTION.read(reader);
        Optional<List<String>> tags = TAGS.read(reader);
        Optional<String> icon = ICON.read(reader);
        Optional<JsonNode> dag = DAG_CONFIG.read(reader);
        RouterStatus status = STATUS.read(reader)
                .flatMap(RouterStatus::of)
                .orElse(dag.isPresent() ? RouterStatus.ACTIVE : RouterStatus.DRAFT);
        JsonNode given = dag.orElseGet(Json::object);
        List<Warning> warnings = checks.graph(given, status, problems, checker(ctx, project.value()::equals));
        problems.throwIfAny();
        ObjectNode graph = (ObjectNode) given; // an object: the graph check refuses anything else
        Instant now = store.now();
        var router = new Router(
                Ids.next("rtr"),
                project.value(),
                name.orElseThrow(),
                description.orElse(""),
                tags.orElse(List.of()),
                icon.orElse(""),
                status,
                graph,
                now,
                now);
        store.create(router, Routers.references(graph, catalog));
        Responses.created(ctx, "/routers/" + router.id(), RouterReplies.Saved.of(router, warnings));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx, PROJECT_QUERY.read(ctx));
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        var problems = new Problems();
        Optional<RouterStatus> status = STATUS_QUERY.read(ctx).flatMap(s -> {
            Optional<RouterStatus> known = RouterStatus.of(s);
            if (known.isEmpty()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        "status",
                        "`status` must be one of " + String.join(", ", STATUSES) + ".");
            }
            return known;
        });
        problems.throwIfAny();
        List<String> tags = TAGS_QUERY.read(ctx).stream()
                .flatMap(t -> Arrays.stream(t.split(",")))
                .map(String::strip)
                .filter(t -> !t.isEmpty())
                .toList();
        Optional<String> q = NAME_QUERY.read(ctx).map(String::strip).filter(t -> !t.isEmpty());
        Paging.Result<Router> page =
                store.list(PageParams.from(ctx), new RouterStore.Filter(projects, status, q, tags));
        Responses.ok(ctx, Responses.page(page, Router::id, RouterReplies.RouterJson::of));
    }

    private void get(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        // a read shows what a save answered, so a keyed save whose answer was lost is answered again from it
        Responses.ok(ctx, RouterReplies.Saved.of(router, checks.warnings(router, Access.principal(ctx))));
    }

    /** The router fields a save and a patch both take; each one left out keeps its value. */
    private record FieldEdits(
            Optional<String> name, Optional<String> description, Optional<List<String>> tags, Optional<String> icon) {
        static FieldEdits read(BodyReader reader) {
            return new FieldEdits(
                    OPTIONAL_NAME.read(reader).map(String::strip),
                    DESCRIPTION.read(reader),
                    TAGS.read(reader),
                    ICON.read(reader));
        }

        Router applied(Router current, RouterStatus status, ObjectNode dagConfig, Instant modifiedAt) {
            return new Router(
                    current.id(),
                    current.projectId(),
                    name.orElse(current.name()),
                    description.orElse(current.description()),
                    tags.orElse(current.tags()),
                    icon.orElse(current.icon()),
                    status,
                    dagConfig,
                    current.createdAt(),
                    modifiedAt);
        }
    }

    private void save(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = SAVE.reader(body);
        Problems problems = reader.problems();
        Router current = visible(ctx, PROJECT_ID.read(reader));
        FieldEdits edits = FieldEdits.read(reader);
        RouterStatus status = STATUS.read(reader).flatMap(RouterStatus::of).orElse(RouterStatus.ACTIVE);
        Optional<JsonNode> dag = SAVED_DAG_CONFIG.read(reader);
        List<Warning> warnings = dag.map(
                        d -> checks.graph(d, status, problems, checker(ctx, current.projectId()::equals)))
                .orElse(List.of());
        problems.throwIfAny();
        Router router = edits.applied(current, status, (ObjectNode) dag.orElseThrow(), after(current));
        store.update(router, Routers.references(router.dagConfig(), catalog), RouterStore.VersionKeeping.KEEP_PREVIOUS);
        Responses.ok(ctx, RouterReplies.Saved.of(router, warnings));
    }

    private void change(Context ctx) {
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CHANGE.reader(body);
        Problems problems = reader.problems();
        Router current = visible(ctx, PROJECT_ID.read(reader));
        FieldEdits edits = FieldEdits.read(reader);
        RouterStatus status = STATUS.read(reader).flatMap(RouterStatus::of).orElse(current.status());
        if (problems.isEmpty() && status != current.status()) {
            checks.graph(current.dagConfig(), status, problems, checker(ctx, current.projectId()::equals));
        }
        problems.throwIfAny();
        Router router = edits.applied(current, status, current.dagConfig(), after(current));
        store.update(router, Routers.references(router.dagConfig(), catalog), RouterStore.VersionKeeping.SAME_GRAPH);
        Responses.ok(ctx, RouterReplies.Saved.of(router, checks.warnings(router, Access.principal(ctx))));
    }

    private void versions(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        Paging.Result<RouterStore.Version> page = store.versions(router.id(), PageParams.from(ctx));
        Responses.ok(
                ctx,
                Responses.page(
                        page,
                        version -> Integer.toString(version.version()),
                        version -> RouterReplies.Version.of(router.id(), version)));
    }

    private void delete(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        if (!store.delete(router.id())) {
            throw Routers.notFound(router.id(), false);
        }
        steps.caches().clear(router.id());
        Responses.ok(ctx, RouterReplies.Deleted.router(router.id()));
    }

    private void clearCache(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        Responses.ok(
                ctx, RouterReplies.CacheCleared.of(router.id(), steps.caches().clear(router.id())));
    }

    private void health(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        List<String> endpoints = Routers.references(router.dagConfig(), catalog).stream()
                .filter(reference -> reference.kind() == Referrers.Kind.MODEL)
                .map(RouterStore.Reference::ref)
                .toList();
        Responses.ok(ctx, EndpointHealthList.of(telemetry.endpointHealth(endpoints)));
    }

    private void stats(Context ctx) {
        Router router = visible(ctx, Optional.empty());
        Instant since = SINCE_QUERY
                .read(ctx)
                .map(text -> {
                    try {
                        return Instant.ofEpochSecond(Long.parseLong(text));
                    } catch (NumberFormatException | DateTimeException e) {
                        throw ApiException.of(
                                ErrorCode.INVALID_PARAMETER, "since", "`since` must be a moment in Unix seconds.");
                    }
                })
                .orElseGet(() -> store.now().minus(DEFAULT_STATS_PERIOD));
        Responses.ok(
                ctx,
                RouterReplies.Stats.of(
                        telemetry.usage(router.id(), since), steps.counts().since(router.id(), since)));
    }

    /** This request's caller checking, with deployments found in the projects {@code projects} accepts. */
    private static RouterChecks.Checker checker(Context ctx, Predicate<String> projects) {
        return new RouterChecks.Checker(Access.principal(ctx), projects);
    }

    /** A save's time: later than the last one, so that {@code modified_at} moves on every save. */
    private Instant after(Router current) {
        Instant now = store.now();
        return now.isAfter(current.modifiedAt()) ? now : current.modifiedAt().plusMillis(1);
    }

    /**
     * The path's router, when it is in the current project (if one is named) and the caller may act in its project;
     * otherwise 404, as if there were none.
     */
    private Router visible(Context ctx, Optional<String> projectId) {
        Optional<ProjectId> current = access.currentProject().named(ctx, projectId);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam(ROUTER_ID);
        return store.find(id)
                .filter(r -> principal.mayActIn(r.projectId()))
                .filter(r -> current.map(p -> p.value().equals(r.projectId())).orElse(true))
                .orElseThrow(() -> Routers.notFound(id, current.isPresent()));
    }
}
