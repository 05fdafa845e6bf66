package dev.arbor.audit;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.audit.AuditStore.Entry;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The audit log, read only: there is no route that writes or deletes a row. An admin sees every row; a member only
 * the rows of its own projects (naming another project is refused as on every route); a row of no project (a token,
 * a cluster, the studio's settings) is an admin's only.
 */
final class AuditRoutes {
    private static final QueryParam PROJECT_ID = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only this project's changes (X-Project-Id when left out); without either, every change the token may see.");
    private static final QueryParam RESOURCE_TYPE = new QueryParam(
            "resource_type", Schema.string(), "Only the changes of this type of resource (credential, router, ...).");
    private static final QueryParam RESOURCE_ID =
            new QueryParam("resource_id", Schema.string(), "Only the changes of the resource with this id.");
    private static final QueryParam ACTOR = new QueryParam(
            "actor",
            Schema.string(),
            "Only the changes made by this token id (env: ARBOR_ADMIN_TOKEN, local: the local admin, studio: the "
                    + "studio's key).");
    private static final QueryParam ACTION = new QueryParam(
            "action", Schema.string(), "Only the changes of this action (create, update, delete, cancel, ...).");
    private static final QueryParam REQUEST_ID = new QueryParam(
            "request_id", Schema.string(), "Only the change made by the request with this id (its x-request-id).");
    private static final QueryParam SINCE =
            new QueryParam("since", timestamp(), "Only the changes made at this moment or after (Unix seconds).");
    private static final QueryParam UNTIL =
            new QueryParam("until", timestamp(), "Only the changes made before this moment (Unix seconds).");

    private static final Schema CHANGE = object().required("path", string())
            .optional("before", any("The field's value before; absent when it had none"))
            .optional("after", any("The field's value after; absent when it has none"));
    static final Schema ENTRY = named(
            "AuditEntry",
            resource("audit.entry")
                    .required("created_at", timestamp())
                    .required("actor", object().required("id", string()).required("name", string()))
                    .required("action", string())
                    .required("route", string())
                    .required("resource_type", string())
                    .required("resource_id", nullable(string()))
                    .required("project_id", nullable(string()))
                    .required("request_id", string())
                    .required("status", nullable(integer(100, 599)))
                    .required("request_fields", arrayOf(string()))
                    .required("diff", oneOf("complete", "after_unknown", "unreadable"))
                    .required("changes", arrayOf(CHANGE)));

    private final AuditStore store;

    AuditRoutes(AuditStore store) {
        this.store = requireNonNull(store, "store");
    }

    void addTo(Routes routes) {
        routes.group("audit")
                .get(
                        "/audit",
                        "The audit log of changes to admin state, newest first (filters: project, resource type and "
                                + "id, actor, action, request, time); read only",
                        this::list)
                .query(PageParams.PARAMETERS)
                .query(PROJECT_ID, RESOURCE_TYPE, RESOURCE_ID, ACTOR, ACTION, REQUEST_ID, SINCE, UNTIL)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ENTRY))
                .get("/audit/{audit_id}", "One change of the audit log", this::get)
                .header(CurrentProject.HEADER)
                .ok(ENTRY);
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<String> project = given(ctx, PROJECT_ID)
                .map(id -> Optional.of(checked(principal, id, PROJECT_ID.name())))
                .orElseGet(() -> CurrentProject.HEADER
                        .read(ctx)
                        .map(String::strip)
                        .filter(id -> !id.isEmpty())
                        .map(id -> checked(principal, id, CurrentProject.HEADER.name())));
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p)))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        var problems = new Problems();
        Optional<Long> since = seconds(ctx, SINCE, problems);
        Optional<Long> until = seconds(ctx, UNTIL, problems);
        problems.throwIfAny();
        var filter = new AuditStore.Filter(
                projects,
                given(ctx, RESOURCE_TYPE),
                given(ctx, RESOURCE_ID),
                given(ctx, ACTOR),
                given(ctx, ACTION),
                given(ctx, REQUEST_ID),
                since.map(s -> s * 1000),
                until.map(u -> u * 1000));
        Responses.ok(ctx, Responses.page(store.list(PageParams.from(ctx), filter), Entry::id, EntryView::of));
    }

    private void get(Context ctx) {
        Principal principal = Access.principal(ctx);
        // a member names only its own projects, here as on every route
        CurrentProject.HEADER
                .read(ctx)
                .map(String::strip)
                .filter(project -> !project.isEmpty())
                .ifPresent(project -> checked(principal, project, CurrentProject.HEADER.name()));
        String id = ctx.pathParam("audit_id");
        Entry entry = store.find(id)
                .filter(found -> principal.isAdmin()
                        || found.projectId().map(principal::mayActIn).orElse(false))
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.AUDIT_ENTRY_NOT_FOUND,
                        "audit_id",
                        "There is no change '" + id + "' in the audit log."));
        Responses.ok(ctx, EntryView.of(entry));
    }

    /**
     * A project a list may be narrowed to: a member only its own (403 {@code project_forbidden}); an admin any, a
     * project deleted since included (its changes stay in the log).
     */
    private static String checked(Principal principal, String id, String param) {
        if (!principal.mayActIn(id)) {
            throw CurrentProject.forbidden(
                    param, "This token may not read the changes of project '" + id + "' (`" + param + "`).");
        }
        return id;
    }

    private static Optional<Long> seconds(Context ctx, QueryParam param, Problems problems) {
        Optional<String> text = given(ctx, param);
        if (text.isEmpty()) {
            return Optional.empty();
        }
        try {
            long value = Long.parseLong(text.get());
            if (value >= 0) {
                return Optional.of(value);
            }
        } catch (NumberFormatException e) {
            // said below
        }
        problems.add(
                ErrorCode.INVALID_PARAMETER,
                param.name(),
                "`" + param.name() + "` is '" + text.get()
                        + "'; it is a time in whole Unix seconds, such as 1767225600.");
        return Optional.empty();
    }

    private static Optional<String> given(Context ctx, QueryParam param) {
        return param.read(ctx).map(String::strip).filter(value -> !value.isEmpty());
    }

    /** Who made a change. */
    record ActorView(String id, String name) {}

    /** A change as the API shows it. */
    record EntryView(
            String id,
            String object,
            @JsonProperty("created_at") long createdAt,
            ActorView actor,
            String action,
            String route,
            @JsonProperty("resource_type") String resourceType,
            @JsonProperty("resource_id") @Nullable String resourceId,
            @JsonProperty("project_id") @Nullable String projectId,
            @JsonProperty("request_id") String requestId,
            @Nullable Integer status,
            @JsonProperty("request_fields") List<String> requestFields,
            String diff,
            List<Changes.Change> changes) {
        static EntryView of(Entry entry) {
            return new EntryView(
                    entry.id(),
                    "audit.entry",
                    entry.createdAtMillis() / 1000,
                    new ActorView(entry.actorId(), entry.actorName()),
                    entry.action(),
                    entry.route(),
                    entry.resourceType(),
                    entry.resourceId().orElse(null),
                    entry.projectId().orElse(null),
                    entry.requestId(),
                    entry.status().isPresent() ? entry.status().getAsInt() : null,
                    entry.requestFields(),
                    entry.diff().wire(),
                    // a change is shown only from both states: one missing would show every field as changed
                    entry.diff() == AuditStore.Diff.COMPLETE
                            ? Changes.between(entry.before(), entry.after())
                            : List.of());
        }
    }
}
