package dev.arbor.audit;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.audit.AuditStore.Diff;
import dev.arbor.audit.AuditStore.Entry;
import dev.arbor.audit.AuditedWrite.Resource;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Route;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.timers.Repeating;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit log of changes to admin state. Every write route of the admin API and the studio (but those that serve
 * traffic, {@link #NOT_AUDITED}) runs inside it: the resource it changes is read before, each write transaction the
 * request makes on its thread also inserts the request's row ({@link Database#beforeEachCommit}), so the row commits
 * with the change or not at all, and once the request is answered the resource is read again and the row completed
 * with its state after. A request that commits nothing (refused, invalid, failed before writing) leaves no row.
 *
 * <p>The row keeps who (the token's id and name, {@code ARBOR_ADMIN_TOKEN}, the local admin, or the studio's key),
 * the action and route, the resource's type, id and project, the request id, the names of the fields sent, and the
 * resource's state before and after as its read shows it to the caller, redacted ({@link Redaction}). The state
 * after is read in its own transaction after the change's: a server that stops in between leaves the row's diff
 * {@code after_unknown}.
 */
public final class AuditLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);

    private static final String SERVES = "serves a model's answer; the usage log records it";
    private static final String DECIDES = "a decision; the studio's history records it";
    private static final String CHECKS = "a check that stores nothing";

    /**
     * Writes that serve traffic or check a request rather than change admin state: each has a record of its own (usage, the studio's
     * decision history, the tool call audit), and a row each would bury the changes.
     */
    static final Map<String, String> NOT_AUDITED = Map.ofEntries(
            Map.entry("POST /v1/chat/completions", SERVES),
            Map.entry("POST /v1/completions", SERVES),
            Map.entry("POST /v1/embeddings", SERVES),
            Map.entry("POST /v1/decide", DECIDES),
            Map.entry("POST /v1/studio/decisions", DECIDES),
            Map.entry("POST /v1/studio/decisions/{decision_id}/rerun", DECIDES),
            Map.entry("POST /mcp/prompts/{prompt_id}", "an agent's tool call; the tool call audit records it"),
            Map.entry("POST /v1/studio/decisions/preview", CHECKS),
            Map.entry("POST /v1/studio/models/compatibility", CHECKS),
            Map.entry("POST /pipelines/validate", CHECKS),
            Map.entry("POST /pipelines/actions/validate", CHECKS),
            Map.entry("POST /routers/validate", CHECKS),
            Map.entry("POST /routers/actions/validate", CHECKS));

    private static final String LOCAL_ADMIN = "local admin";

    private final AuditStore store;
    private final Access access;
    private final Clock clock;
    private final Duration retention;
    private final Map<String, String> tokenNames = new ConcurrentHashMap<>();
    private final ScheduledExecutorService pruner = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("audit-prune").factory());

    /** @param retention how long a row is kept ({@code ARBOR_AUDIT_RETENTION_DAYS}) */
    public AuditLog(Database database, Access access, Clock clock, Duration retention) {
        this.store = new AuditStore(requireNonNull(database, "database"));
        this.access = requireNonNull(access, "access");
        this.clock = requireNonNull(clock, "clock");
        this.retention = requireNonNull(retention, "retention");
    }

    public void addRoutes(Routes routes) {
        new AuditRoutes(store).addTo(routes);
    }

    /**
     * Runs every audited write of the table inside the audit log; call once every route is added, before the server
     * reads them.
     */
    public void auditWrites(Routes routes) {
        List<Route> all = routes.all();
        routes.wrapHandlers(route -> audited(route)
                .map(write -> recording(AuditedWrite.of(route, all)))
                .orElse(route.handler()));
    }

    /** Whether a route's changes are audited: a write that is not public and does not serve traffic. */
    static Optional<Route> audited(Route route) {
        boolean audited = Requests.isWrite(route.method())
                && route.access() != dev.arbor.platform.http.Access.PUBLIC
                && !NOT_AUDITED.containsKey(route.method() + " " + route.path());
        return audited ? Optional.of(route) : Optional.empty();
    }

    /** Prunes the rows past the retention every hour, the first time now. */
    public void start() {
        Repeating.every(pruner, Duration.ZERO, Duration.ofHours(1), "The audit log's prune", this::pruneQuietly);
    }

    /** Deletes the rows older than the retention, as the hour's timer would; how many. */
    public int prune() {
        return store.deleteBefore(clock.millis() - retention.toMillis());
    }

    private void pruneQuietly() {
        try {
            int deleted = prune();
            if (deleted > 0) {
                LOG.info("Deleted {} audit log rows past their retention of {} days", deleted, retention.toDays());
            }
        } catch (RuntimeException e) {
            LOG.warn("The audit log's prune failed: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        pruner.shutdownNow();
    }

    private Handler recording(AuditedWrite write) {
        Handler handler = write.write().handler();
        return ctx -> {
            // the studio's routes take its key, not a token: a token sent beside it still names the caller
            Actor actor = actor(Access.caller(ctx).or(() -> access.identify(ctx)));
            Optional<JsonNode> before = switch (write.resource()) {
                case Resource.Existing existing -> state(existing.read(), ctx, ctx.pathParamMap());
                case Resource.Created created -> Optional.empty();
                case Resource.Unread unread -> Optional.empty();
            };
            String id = Ids.nextUnnoted("aud");
            long at = clock.millis();
            var minted = new ArrayList<String>();
            var committed = new AtomicBoolean();
            int failed = 0;
            try {
                Database.beforeEachCommit(
                        handle -> {
                            store.insert(handle, started(id, at, actor, write, ctx, before));
                            committed.set(true);
                        },
                        () -> Ids.noting(minted::add, () -> {
                            handler.handle(ctx);
                            return null;
                        }));
            } catch (Exception e) {
                failed = e instanceof ApiException api ? api.status() : 500;
                throw e;
            } finally {
                if (committed.get()) {
                    complete(id, write, ctx, before, minted, failed == 0 ? ctx.statusCode() : failed);
                }
            }
        };
    }

    /** The row as the change's transaction writes it: all but the state after. */
    private Entry started(String id, long at, Actor actor, AuditedWrite write, Context ctx, Optional<JsonNode> before) {
        Optional<String> resourceId = switch (write.resource()) {
            case Resource.Existing existing -> existing.id().map(ctx::pathParam);
            case Resource.Unread unread -> unread.id().map(ctx::pathParam);
            case Resource.Created created -> Optional.empty();
        };
        return new Entry(
                id,
                at,
                actor.id(),
                actor.name(),
                write.action(),
                write.routeName(),
                write.resourceType(),
                resourceId,
                project(write, ctx, resourceId, before, Optional.empty()),
                Requests.id(ctx),
                before,
                Optional.empty(),
                write.resource() instanceof Resource.Unread ? Diff.UNREADABLE : Diff.AFTER_UNKNOWN,
                List.of(),
                OptionalInt.empty());
    }

    /**
     * Completes a committed row once the request is answered (or failed after its work committed): the new
     * resource's id, its state after, the fields sent and the status. A failure here is logged: the change and its
     * row have committed, and the caller's answer stands.
     */
    private void complete(
            String id, AuditedWrite write, Context ctx, Optional<JsonNode> before, List<String> minted, int status) {
        try {
            Optional<String> resourceId = Optional.empty();
            Optional<JsonNode> after = Optional.empty();
            Diff diff = Diff.UNREADABLE;
            switch (write.resource()) {
                case Resource.Existing existing -> {
                    resourceId = existing.id().map(ctx::pathParam);
                    after = existing.deletes() ? Optional.empty() : state(existing.read(), ctx, ctx.pathParamMap());
                    boolean read = before.isPresent() && (existing.deletes() || after.isPresent());
                    diff = read ? Diff.COMPLETE : Diff.UNREADABLE;
                }
                case Resource.Created created -> {
                    String param = created.read()
                            .path()
                            .substring(created.read().path().lastIndexOf('{') + 1)
                            .replace("}", "");
                    for (String candidate : candidates(ctx, minted)) {
                        var params = new LinkedHashMap<>(ctx.pathParamMap());
                        params.put(param, candidate);
                        after = state(created.read(), ctx, params);
                        if (after.isPresent()) {
                            resourceId = Optional.of(candidate);
                            diff = Diff.COMPLETE;
                            break;
                        }
                    }
                }
                case Resource.Unread unread ->
                    // a create no read shows (a token) is named by the id its answer shows
                    resourceId = unread.id()
                            .map(ctx::pathParam)
                            .or(() -> write.action().equals("create")
                                    ? answered(ctx)
                                            .map(answer -> answer.path("id"))
                                            .filter(JsonNode::isTextual)
                                            .map(JsonNode::asText)
                                    : Optional.empty());
            }
            store.complete(
                    id,
                    resourceId,
                    project(write, ctx, resourceId, before, after),
                    after,
                    diff,
                    requestFields(write.write(), ctx),
                    status);
        } catch (RuntimeException e) {
            LOG.warn("The audit row {} of request {} could not be completed: {}", id, Requests.id(ctx), e.toString());
        }
    }

    /** The ids a create's resource may have: the one its answer shows first, then those the request made. */
    private static List<String> candidates(Context ctx, List<String> minted) {
        var ids = new ArrayList<String>();
        answered(ctx)
                .map(answer -> answer.path("id"))
                .filter(JsonNode::isTextual)
                .ifPresent(answerId -> ids.add(answerId.asText()));
        minted.stream().filter(m -> !ids.contains(m)).forEach(ids::add);
        return ids;
    }

    /** The answer's JSON body, when it has one. */
    private static Optional<JsonNode> answered(Context ctx) {
        try (InputStream in = ctx.resultInputStream()) {
            if (in == null) {
                return Optional.empty();
            }
            byte[] body = in.readAllBytes();
            ctx.result(body); // read once: put back to be sent
            return body.length == 0 ? Optional.empty() : Optional.of(Json.read(body));
        } catch (Exception e) {
            return Optional.empty();
        }
    }

    /** The resource's state as its read shows it to the caller, redacted. */
    private static Optional<JsonNode> state(Route read, Context ctx, Map<String, String> params) {
        return Snapshot.take(read, ctx, params).map(Redaction::redact);
    }

    /**
     * The project the change belongs to: the one the resource's state names, else the project itself, else the
     * project the route took from its {@code X-Project-Id} header (it checked the caller may act in it).
     */
    private static Optional<String> project(
            AuditedWrite write,
            Context ctx,
            Optional<String> resourceId,
            Optional<JsonNode> before,
            Optional<JsonNode> after) {
        for (Optional<JsonNode> state : List.of(after, before)) {
            Optional<String> named = state.map(s -> s.path(CurrentProject.FIELD))
                    .filter(JsonNode::isTextual)
                    .map(JsonNode::asText);
            if (named.isPresent()) {
                return named;
            }
        }
        if (write.resourceType().equals("project")) {
            return resourceId;
        }
        boolean declares = write.write().headers().stream()
                .anyMatch(header -> header.name().equalsIgnoreCase(CurrentProject.HEADER.name()));
        Optional<String> header =
                declares ? CurrentProject.HEADER.read(ctx).filter(p -> !p.isBlank()) : Optional.empty();
        return header.or(() -> bodyProject(write.write(), ctx));
    }

    /** The {@code project_id} of a write's JSON body, which a write that committed acted in (the route checked it). */
    private static Optional<String> bodyProject(Route write, Context ctx) {
        if (!(write.body() instanceof Route.Body.Json json) || json.maxBytes().isPresent()) {
            return Optional.empty();
        }
        try {
            JsonNode named = Json.parseObject(Requests.body(ctx)).path(CurrentProject.FIELD);
            return named.isTextual() ? Optional.of(named.asText()) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The names of the JSON body's top-level fields, never their values; none for a file or media sent inline. */
    private static List<String> requestFields(Route write, Context ctx) {
        if (!(write.body() instanceof Route.Body.Json json) || json.maxBytes().isPresent()) {
            return List.of();
        }
        try {
            var names = new ArrayList<String>();
            Json.parseObject(Requests.body(ctx)).fieldNames().forEachRemaining(names::add);
            return names;
        } catch (RuntimeException e) {
            return List.of(); // no body, or not an object: the route said so, or took none
        }
    }

    /** Who made a change, as a row names them. */
    record Actor(String id, String name) {}

    private Actor actor(Optional<Principal> caller) {
        if (caller.isEmpty()) {
            return new Actor("studio", "studio key");
        }
        String tokenId = caller.get().tokenId();
        return switch (tokenId) {
            case "local" -> new Actor(tokenId, LOCAL_ADMIN);
            case "env" -> new Actor(tokenId, "ARBOR_ADMIN_TOKEN");
            default ->
                new Actor(
                        tokenId,
                        tokenNames.computeIfAbsent(
                                tokenId, t -> access.tokenName(t).orElse(t)));
        };
    }
}
