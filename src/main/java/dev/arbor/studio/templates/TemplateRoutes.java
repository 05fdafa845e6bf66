package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Models;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.studio.templates.versions.StarterTemplates;
import dev.arbor.studio.templates.versions.TemplateStore;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The template routes under {@code /v1/studio/templates}. */
final class TemplateRoutes {
    static final int MAX_BODY_BYTES = 256 * 1024;
    private static final String BASE = "/v1/studio/templates";
    private static final Pattern IF_MATCH = Pattern.compile("(?:W/)?\"?(\\d{1,9})(?:\\.[0-9a-f]{1,8})?\"?");

    private final TemplateService templates;
    private final TemplateBodies bodies;
    private final VersionHandlers versionHandlers;

    TemplateRoutes(TemplateService templates, TemplateStore store, Models models) {
        this.templates = requireNonNull(templates, "templates");
        this.bodies = new TemplateBodies(templates, requireNonNull(models, "models"));
        this.versionHandlers = new VersionHandlers(templates, requireNonNull(store, "store"));
    }

    void addTo(Routes routes) {
        var group = routes.group("studio.templates")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post(BASE, "Create a template (or clone one with `from`)", this::create)
                .body(ApiShapes.DEFINITION)
                .created(ApiShapes.TEMPLATE)
                .get(BASE, "List templates", this::list)
                .query(PageParams.PARAMETERS)
                .query(
                        ApiShapes.ORIGIN,
                        ApiShapes.INCLUDE,
                        ApiShapes.SEARCH,
                        ApiShapes.ARCHIVED,
                        ApiShapes.INCLUDE_ARCHIVED)
                .ok(Schema.list(ApiShapes.TEMPLATE));
        // Starter templates have two-segment ids (builtin/<name>): each route is there for them too, first.
        for (String one : List.of(BASE + "/builtin/{builtin_name}", BASE + "/{template_id}")) {
            group.get(one, "Get a template (latest version, or ?version=)", this::get)
                    .query(ApiShapes.VERSION_PARAM, ApiShapes.INCLUDE)
                    .ok(ApiShapes.TEMPLATE)
                    .put(one, "Create or replace a template; a new definition makes a new version", this::put)
                    .body(ApiShapes.DEFINITION)
                    .ok(ApiShapes.TEMPLATE)
                    .created(ApiShapes.TEMPLATE)
                    .patch(one, "Merge-patch a template; a changed definition makes a new version", this::patch)
                    .body(ApiShapes.DEFINITION)
                    .ok(ApiShapes.TEMPLATE)
                    .delete(one, "Delete a template (needs ?confirm=<id>)", this::delete)
                    .query(ApiShapes.CONFIRM, ApiShapes.HISTORY)
                    .ok(ApiShapes.DELETED)
                    .action(one + "/archive", "Archive a template (it still works)", ctx -> archive(ctx, true))
                    .ok(ApiShapes.TEMPLATE)
                    .action(one + "/unarchive", "Unarchive a template", ctx -> archive(ctx, false))
                    .ok(ApiShapes.TEMPLATE)
                    .get(one + "/versions", "List a template's versions", versionHandlers::versions)
                    .query(PageParams.PARAMETERS)
                    .query(ApiShapes.INCLUDE)
                    .ok(ApiShapes.VERSIONS)
                    .get(
                            one + "/versions/{version}",
                            "Get a version by number, alias or latest",
                            versionHandlers::version)
                    .ok(ApiShapes.VERSION)
                    .get(one + "/versions/{version}/diff", "What changed between two versions", versionHandlers::diff)
                    .query(ApiShapes.AGAINST)
                    .ok(ApiShapes.DIFF)
                    .action(
                            one + "/versions/{version}/restore",
                            "Make an older version's definition the latest again",
                            versionHandlers::restore)
                    .ok(ApiShapes.TEMPLATE)
                    .get(one + "/schema", "JSON Schema of a version's variables", versionHandlers::schema)
                    .query(ApiShapes.VERSION_PARAM)
                    .answers(200, "application/schema+json", ApiShapes.VARIABLES_SCHEMA)
                    .get(one + "/compatibility", "Which models can run a version", this::compatibilityRoute)
                    .query(ApiShapes.VERSION_PARAM)
                    .ok(ApiShapes.COMPATIBILITY)
                    .put(one + "/aliases/{alias}", "Point an alias at a version", versionHandlers::setAlias)
                    .body(VersionHandlers.ALIAS_IN.schema())
                    .ok(ApiShapes.ALIAS)
                    .delete(one + "/aliases/{alias}", "Remove an alias", versionHandlers::deleteAlias)
                    .ok(ApiShapes.ALIAS_DELETED);
        }
    }

    /** The template id of the path: {@code builtin/<name>} or a user template's id. */
    static String templateId(Context ctx) {
        return ctx.pathParamMap().containsKey("builtin_name")
                ? StarterTemplates.PREFIX + ctx.pathParam("builtin_name")
                : ctx.pathParam("template_id");
    }

    private void create(Context ctx) {
        TemplateBodies.Creation creation = bodies.creation(body(ctx));
        write(ctx, templates.create(creation.input(), creation.source()));
    }

    private void put(Context ctx) {
        String id = templateId(ctx);
        Optional<Integer> ifMatch = ifMatch(ctx);
        TemplateInput input = bodies.input(body(ctx));
        write(ctx, templates.save(id, input, ifMatch, "api"));
    }

    private void patch(Context ctx) {
        String id = templateId(ctx);
        Optional<Integer> ifMatch = ifMatch(ctx);
        TemplateInput input = bodies.patched(id, body(ctx), BASE);
        write(ctx, templates.save(id, input, ifMatch, "api"));
    }

    private void get(Context ctx) {
        var loaded = templates.load(templateId(ctx), ApiShapes.VERSION_PARAM.read(ctx));
        TemplateView view = TemplateView.of(loaded.head(), loaded.version(), loaded.aliases(), true);
        if (ApiShapes.INCLUDE.read(ctx).filter("compatibility"::equals).isPresent()) {
            view = view.withCompatibility(bodies.compatibility(loaded.version()));
        }
        ctx.header("etag", view.etag(loaded.head().latestVersion()));
        Responses.ok(ctx, view);
    }

    /** What {@code GET .../compatibility} answers. */
    @JsonPropertyOrder({"object", "template", "version", "models"})
    private record CompatibilityReply(String template, int version, List<TemplateView.Compatibility> models) {
        @JsonProperty("object")
        String object() {
            return "template.compatibility";
        }
    }

    private void compatibilityRoute(Context ctx) {
        String id = templateId(ctx);
        var loaded = templates.load(id, ApiShapes.VERSION_PARAM.read(ctx));
        Responses.ok(
                ctx, new CompatibilityReply(id, loaded.version().version(), bodies.compatibility(loaded.version())));
    }

    private void list(Context ctx) {
        Page page = PageParams.from(ctx);
        var problems = new Problems();
        Optional<String> origin = ApiShapes.ORIGIN.read(ctx);
        origin.filter(o -> !o.equals("user") && !o.equals("builtin"))
                .ifPresent(o -> problems.add(
                        ErrorCode.INVALID_PARAMETER, "origin", "`origin` must be user or builtin, not '" + o + "'."));
        Optional<Boolean> archived = booleanParam(ctx, ApiShapes.ARCHIVED, problems);
        boolean includeArchived =
                booleanParam(ctx, ApiShapes.INCLUDE_ARCHIVED, problems).orElse(false);
        boolean withDefinition =
                ApiShapes.INCLUDE.read(ctx).filter("definition"::equals).isPresent();
        problems.throwIfAny();
        var filter = new TemplateStore.ListFilter(
                origin,
                archived.isPresent() ? archived : includeArchived ? Optional.empty() : Optional.of(false),
                ApiShapes.SEARCH.read(ctx).filter(q -> !q.isBlank()));
        TemplateService.Listed listed = templates.list(filter, page);
        Responses.ok(
                ctx,
                ListReply.of(
                        listed.templates().stream()
                                .map(one -> TemplateView.of(one.head(), one.latest(), one.aliases(), withDefinition))
                                .toList(),
                        listed.templates().stream().map(one -> one.head().id()).toList(),
                        listed.more()));
    }

    private void delete(Context ctx) {
        String id = templateId(ctx);
        String confirm = ApiShapes.CONFIRM.read(ctx).orElse(null);
        if (confirm == null || !confirm.equals(id)) {
            throw ApiException.of(
                    ErrorCode.CONFIRMATION_REQUIRED,
                    "confirm",
                    "Deleting a template needs " + "?confirm=" + id + " to say that this is the template meant.");
        }
        String history = ApiShapes.HISTORY.read(ctx).orElse("keep");
        if (!history.equals("keep") && !history.equals("delete")) {
            throw ApiException.of(ErrorCode.INVALID_PARAMETER, "history", "`history` must be keep or delete.");
        }
        TemplateService.Deleted deleted = templates.delete(id, history.equals("delete"));
        Responses.ok(ctx, new DeletedReply(id, deleted.versionsKept(), deleted.decisionsDeleted()));
    }

    /** What {@code DELETE} answers: besides the delete, the versions kept for history and the decisions deleted. */
    @JsonPropertyOrder({"id", "object", "deleted", "versions_kept", "decisions_deleted"})
    private record DeletedReply(
            String id,
            @JsonProperty("versions_kept") int versionsKept,
            @JsonProperty("decisions_deleted") long decisionsDeleted) {
        @JsonProperty("object")
        String object() {
            return "template.deleted";
        }

        @JsonProperty("deleted")
        boolean deleted() {
            return true;
        }
    }

    private void archive(Context ctx, boolean archived) {
        write(ctx, templates.setArchived(templateId(ctx), archived));
    }

    private static ObjectNode body(Context ctx) {
        if (Requests.body(ctx).length > MAX_BODY_BYTES) {
            throw ApiException.of(
                    ErrorCode.PAYLOAD_TOO_LARGE, "A template body may be at most " + MAX_BODY_BYTES / 1024 + " KB.");
        }
        return Requests.jsonObject(ctx);
    }

    /** The expected latest version from {@code If-Match}: {@code "3"}, {@code W/"3"}, {@code 3} or an ETag. */
    private static Optional<Integer> ifMatch(Context ctx) {
        String header = ctx.header("If-Match");
        if (header == null || header.isBlank() || header.trim().equals("*")) {
            return Optional.empty();
        }
        Matcher matcher = IF_MATCH.matcher(header.trim());
        if (!matcher.matches()) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "If-Match",
                    "If-Match must name a version, like \"3\" or an ETag of this template, not " + header + ".");
        }
        return Optional.of(Integer.parseInt(matcher.group(1)));
    }

    private static Optional<Boolean> booleanParam(Context ctx, QueryParam param, Problems problems) {
        String name = param.name();
        String value = param.read(ctx).orElse(null);
        if (value == null) {
            return Optional.empty();
        }
        if (value.equals("true") || value.equals("false")) {
            return Optional.of(Boolean.parseBoolean(value));
        }
        problems.add(ErrorCode.INVALID_PARAMETER, name, "`" + name + "` must be true or false.");
        return Optional.empty();
    }

    static void write(Context ctx, TemplateService.Saved saved) {
        TemplateView view = TemplateView.of(saved);
        ctx.header("etag", view.etag(saved.head().latestVersion()));
        if (saved.status() == 201) {
            Responses.created(ctx, BASE + "/" + saved.head().id(), view);
        } else {
            Responses.ok(ctx, view);
        }
    }
}
