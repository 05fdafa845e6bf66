package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Model;
import dev.arbor.models.Models;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateDefinition;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The template routes under {@code /v1/studio/templates}. */
final class TemplateRoutes {
    static final int MAX_BODY_BYTES = 256 * 1024;
    private static final String BASE = "/v1/studio/templates";
    private static final Pattern IF_MATCH = Pattern.compile("(?:W/)?\"?(\\d{1,9})(?:\\.[0-9a-f]{1,8})?\"?");
    private static final Set<String> READ_ONLY = Set.of(
            "id", "object", "origin", "version", "content_hash", "aliases", "created_at", "updated_at", "archived");

    private final TemplateService templates;
    private final TemplateStore store;
    private final Models models;
    private final VersionHandlers versionHandlers;

    TemplateRoutes(TemplateService templates, TemplateStore store, Models models) {
        this.templates = requireNonNull(templates, "templates");
        this.store = requireNonNull(store, "store");
        this.models = requireNonNull(models, "models");
        this.versionHandlers = new VersionHandlers(templates, store);
    }

    /** A template body, checked; warns when the default model it names could not run it. */
    private TemplateInput input(ObjectNode body) {
        Set<String> known = new java.util.HashSet<>();
        models.list().forEach(model -> known.add(model.id()));
        TemplateInput input = TemplateInput.parse(body, known);
        var warnings = new ArrayList<>(TemplateNeeds.undescribed(input.definition()));
        Optional<String> model = input.definition().model();
        if (model.isEmpty()) {
            return input.withMoreWarnings(warnings);
        }
        models.find(model.get())
                .ifPresent(found -> found.facts()
                        .problems(TemplateNeeds.of(input.definition()))
                        .forEach(problem -> warnings.add(new Warning(
                                WarningCode.DEFAULT_MODEL_INCOMPATIBLE,
                                "The default model " + found.id() + " cannot run this template: " + problem.message(),
                                "model"))));
        return input.withMoreWarnings(warnings);
    }

    private ArrayNode compatibility(TemplateVersion version) {
        ArrayNode list = Json.mapper().createArrayNode();
        for (Model model : models.list()) {
            var problems = model.facts().problems(TemplateNeeds.of(version.definition()));
            ObjectNode entry = list.addObject();
            entry.put("model", model.id());
            entry.put("name", model.name());
            entry.put("status", model.status());
            entry.put("ok", problems.isEmpty());
            entry.set("problems", Json.mapper().valueToTree(problems));
            entry.set("notes", Json.mapper().valueToTree(TemplateNeeds.notes(version.definition(), model.facts())));
        }
        return list;
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
                    .body(ApiShapes.ALIAS_IN)
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
        ObjectNode body = body(ctx);
        if (!body.has("from")) {
            write(ctx, templates.create(input(body), "api"));
            return;
        }
        JsonNode from = body.get("from");
        JsonNode reference = from.path("template");
        if (!from.isObject() || !reference.isTextual() || reference.textValue().isBlank()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "from.template",
                    "`from` must be {\"template\": "
                            + "\"<id>[@<version or alias>]\"}, naming the template version to copy.");
        }
        TemplateService.Loaded source;
        try {
            source = templates.reference(reference.textValue());
        } catch (ApiException e) {
            throw ApiException.of(
                    e.code(), "from.template", e.problems().getFirst().message());
        }
        ObjectNode clone = body.deepCopy();
        clone.remove("from");
        for (String field : TemplateInput.DEFINITION_FIELDS) {
            if (!clone.has(field)) {
                clone.set(field, source.version().definitionJson().get(field));
            }
        }
        if (!clone.has("note")) {
            clone.put(
                    "note",
                    "Cloned from " + source.head().id() + "@" + source.version().version());
        }
        write(ctx, templates.create(input(clone), "clone"));
    }

    private void put(Context ctx) {
        String id = templateId(ctx);
        Optional<Integer> ifMatch = ifMatch(ctx);
        TemplateInput input = input(body(ctx));
        write(ctx, templates.save(id, input, ifMatch, "api"));
    }

    private void patch(Context ctx) {
        String id = templateId(ctx);
        Optional<Integer> ifMatch = ifMatch(ctx);
        ObjectNode patch = body(ctx);
        var problems = new Problems();
        for (var names = patch.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (READ_ONLY.contains(name)) {
                problems.add(
                        ErrorCode.READ_ONLY_FIELD,
                        name,
                        name.equals("archived")
                                ? "`archived` changes through POST " + BASE + "/" + id + "/archive and /unarchive."
                                : name.equals("version")
                                        ? "A version number cannot be changed; a changed definition "
                                                + "makes the next version."
                                        : "`" + name + "` cannot be changed.");
            }
        }
        problems.throwIfAny();
        var current = templates.load(id, Optional.empty());
        TemplateService.requireWritable(current.head());
        ObjectNode editable = Json.object();
        editable.put("name", current.head().name());
        editable.put("description", current.head().description());
        editable.set("metadata", current.head().metadata());
        editable.put("storage", current.head().storage());
        current.head()
                .retentionDays()
                .ifPresentOrElse(
                        days -> editable.put("retention_days", days), () -> editable.putNull("retention_days"));
        current.version()
                .definitionJson()
                .properties()
                .forEach(e -> editable.set(e.getKey(), e.getValue().deepCopy()));
        JsonNode merged = Json.mergePatch(editable, patch);
        TemplateInput input = input((ObjectNode) merged);
        write(ctx, templates.save(id, input, ifMatch, "api"));
    }

    private void get(Context ctx) {
        var loaded = templates.load(templateId(ctx), ApiShapes.VERSION_PARAM.read(ctx));
        ObjectNode body = view(loaded.head(), loaded.version(), loaded.aliases(), true);
        if (ApiShapes.INCLUDE.read(ctx).filter("compatibility"::equals).isPresent()) {
            body.set("compatibility", compatibility(loaded.version()));
        }
        ctx.header("etag", etag(loaded.head(), body));
        Responses.ok(ctx, body);
    }

    private void compatibilityRoute(Context ctx) {
        String id = templateId(ctx);
        var loaded = templates.load(id, ApiShapes.VERSION_PARAM.read(ctx));
        ObjectNode body = Json.object();
        body.put("object", "template.compatibility");
        body.put("template", id);
        body.put("version", loaded.version().version());
        body.set("models", compatibility(loaded.version()));
        Responses.ok(ctx, body);
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
        Map<String, Object> body = store.database().read(handle -> {
            List<TemplateHead> heads = store.list(handle, filter, page);
            boolean more = heads.size() > page.limit();
            var data = new ArrayList<Object>();
            var ids = new ArrayList<String>();
            for (TemplateHead head : heads.subList(0, Math.min(heads.size(), page.limit()))) {
                TemplateVersion latest =
                        store.version(handle, head.id(), head.latestVersion()).orElseThrow();
                data.add(view(head, latest, store.aliases(handle, head), withDefinition));
                ids.add(head.id());
            }
            return Responses.list(data, ids, more);
        });
        Responses.ok(ctx, body);
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
        var body = new LinkedHashMap<String, Object>();
        body.put("id", id);
        body.put("object", "template.deleted");
        body.put("deleted", true);
        body.put("versions_kept", deleted.versionsKept());
        body.put("decisions_deleted", deleted.decisionsDeleted());
        Responses.ok(ctx, body);
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
        ObjectNode body = view(saved.head(), saved.version(), saved.aliases(), true);
        body.put("change", saved.change());
        body.set("warnings", Json.mapper().valueToTree(saved.warnings()));
        ctx.header("etag", etag(saved.head(), body));
        if (saved.status() == 201) {
            Responses.created(ctx, BASE + "/" + saved.head().id(), body);
        } else {
            Responses.ok(ctx, body);
        }
    }

    /**
     * The latest version, which {@code If-Match} names back, and a digest of this answer: aliases, the name and the
     * retention change without a new version, and a GET revalidated after such a change must not be answered 304.
     */
    private static String etag(TemplateHead head, JsonNode body) {
        return "\"" + head.latestVersion() + "." + Integer.toHexString(body.hashCode()) + "\"";
    }

    static ObjectNode view(
            TemplateHead head, TemplateVersion version, Map<String, Integer> aliases, boolean withDefinition) {
        ObjectNode json = Json.object();
        json.put("id", head.id());
        json.put("object", "template");
        json.put("name", head.name());
        json.put("description", head.description());
        json.put("origin", head.origin());
        json.put("archived", head.archived());
        json.set("metadata", head.metadata());
        json.put("storage", head.storage());
        head.retentionDays()
                .ifPresentOrElse(days -> json.put("retention_days", days), () -> json.putNull("retention_days"));
        json.set("aliases", Json.mapper().valueToTree(aliases));
        json.put("version", version.version());
        json.put("note", version.note());
        json.put("content_hash", version.contentHash());
        if (withDefinition) {
            version.definitionJson().properties().forEach(e -> json.set(e.getKey(), e.getValue()));
        } else {
            TemplateDefinition definition = version.definition();
            ObjectNode summary = json.putObject("summary");
            var questions = summary.putArray("questions");
            definition.questions().keySet().forEach(questions::add);
            var variables = summary.putArray("variables");
            definition.variables().keySet().forEach(variables::add);
            definition.model().ifPresentOrElse(m -> summary.put("model", m), () -> summary.putNull("model"));
            var modalities = summary.putArray("modalities");
            definition.modalities().forEach(modalities::add);
        }
        json.put("created_at", head.createdAtMillis() / 1000);
        json.put("updated_at", head.updatedAtMillis() / 1000);
        return json;
    }
}
