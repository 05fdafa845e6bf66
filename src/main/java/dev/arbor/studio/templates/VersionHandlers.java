package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.VersionChanges;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The handlers of a template's version routes: list and get versions, diff two, restore one, the variables' schema,
 * and aliases ({@link TemplateRoutes} declares the routes, in their order).
 */
final class VersionHandlers {
    private static final Pattern ALIAS = Pattern.compile("[a-z][a-z0-9_-]{0,31}");

    private final TemplateService templates;
    private final TemplateStore store;

    VersionHandlers(TemplateService templates, TemplateStore store) {
        this.templates = requireNonNull(templates, "templates");
        this.store = requireNonNull(store, "store");
    }

    void versions(Context ctx) {
        String id = TemplateRoutes.templateId(ctx);
        Page page = PageParams.from(ctx);
        Optional<Integer> after = page.after().map(v -> versionCursor("after", v));
        Optional<Integer> before = page.before().map(v -> versionCursor("before", v));
        boolean withDefinition =
                ApiShapes.INCLUDE.read(ctx).filter("definition"::equals).isPresent();
        Map<String, Object> body = store.database().read(handle -> {
            TemplateHead head = store.head(handle, id).orElseThrow(() -> TemplateService.notFound(id));
            Map<String, Integer> aliases = store.aliases(handle, head);
            after.or(() -> before).ifPresent(cursor -> {
                if (cursor < 1 || cursor > head.latestVersion()) {
                    throw page.unknownCursor();
                }
            });
            List<TemplateVersion> rows = store.versions(handle, id, page, after, before);
            boolean more = rows.size() > page.limit();
            if (more) {
                rows = before.isPresent()
                        ? rows.subList(rows.size() - page.limit(), rows.size())
                        : rows.subList(0, page.limit());
            }
            var data = new ArrayList<Object>();
            for (TemplateVersion version : rows) {
                data.add(versionView(version, aliases, withDefinition));
            }
            var list = new LinkedHashMap<String, Object>();
            list.put("object", "list");
            list.put("data", data);
            list.put("first_id", rows.isEmpty() ? null : rows.getFirst().version());
            list.put("last_id", rows.isEmpty() ? null : rows.getLast().version());
            list.put("has_more", more);
            return list;
        });
        Responses.ok(ctx, body);
    }

    void version(Context ctx) {
        String id = TemplateRoutes.templateId(ctx);
        Map<String, Object> body = store.database().read(handle -> {
            TemplateHead head = store.head(handle, id).orElseThrow(() -> TemplateService.notFound(id));
            Map<String, Integer> aliases = store.aliases(handle, head);
            int number = templates.resolve(handle, head, aliases, ctx.pathParam("version"), "version");
            return versionView(store.version(handle, id, number).orElseThrow(), aliases, true);
        });
        Responses.ok(ctx, body);
    }

    void diff(Context ctx) {
        String id = TemplateRoutes.templateId(ctx);
        var to = templates.load(id, Optional.of(ctx.pathParam("version")));
        String against = ApiShapes.AGAINST.read(ctx).orElse(null);
        if (against == null && to.version().version() == 1) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "against",
                    "Version 1 has no version before it; " + "name one with ?against=.");
        }
        var from = templates.load(
                id, Optional.of(against == null ? Integer.toString(to.version().version() - 1) : against));
        ObjectNode changes = VersionChanges.between(
                from.version().version(),
                from.version().definition(),
                to.version().definition());
        ObjectNode body = Json.object();
        body.put("object", "template.diff");
        body.put("template", id);
        body.put("from", from.version().version());
        body.put("to", to.version().version());
        body.set("class", changes.get("class"));
        body.set("breaking_for_callers", changes.get("breaking_for_callers"));
        body.set("questions", changes.get("questions"));
        body.set("summary", changes.get("summary"));
        body.set(
                "changes",
                JsonDiff.between(from.version().definitionJson(), to.version().definitionJson()));
        Responses.ok(ctx, body);
    }

    void restore(Context ctx) {
        Optional<String> note = Optional.empty();
        if (Requests.body(ctx).length > 0) {
            JsonNode sent = Requests.jsonObject(ctx).get("note");
            if (sent != null
                    && !sent.isNull()
                    && (!sent.isTextual() || sent.textValue().length() > 500)) {
                throw ApiException.of(
                        ErrorCode.INVALID_FIELD, "note", "`note` must be a string of at most 500 " + "characters.");
            }
            note = Optional.ofNullable(sent).filter(JsonNode::isTextual).map(JsonNode::textValue);
        }
        TemplateRoutes.write(ctx, templates.restore(TemplateRoutes.templateId(ctx), ctx.pathParam("version"), note));
    }

    void schema(Context ctx) {
        String id = TemplateRoutes.templateId(ctx);
        var loaded = templates.load(id, ApiShapes.VERSION_PARAM.read(ctx));
        ctx.contentType("application/schema+json");
        ctx.result(Json.write(VariableSchema.of(id, loaded.version())));
    }

    void setAlias(Context ctx) {
        String id = TemplateRoutes.templateId(ctx);
        String alias = checkAlias(ctx.pathParam("alias"));
        JsonNode version = Requests.jsonObject(ctx).get("version");
        if (version == null || !version.isIntegralNumber() || !version.canConvertToInt() || version.intValue() < 1) {
            throw ApiException.of(ErrorCode.INVALID_FIELD, "version", "`version` must be a version number.");
        }
        var change = templates.setAlias(id, alias, version.intValue());
        var body = new LinkedHashMap<String, Object>();
        body.put("object", "template.alias");
        body.put("template", id);
        body.put("alias", change.alias());
        body.put("version", change.version());
        body.put("previous_version", change.previous().orElse(null));
        body.put("updated_at", change.updatedAtMillis() / 1000);
        Responses.ok(ctx, body);
    }

    void deleteAlias(Context ctx) {
        String alias = checkAlias(ctx.pathParam("alias"));
        templates.deleteAlias(TemplateRoutes.templateId(ctx), alias);
        Responses.ok(ctx, Map.of("id", alias, "object", "template.alias.deleted", "deleted", true));
    }

    private static String checkAlias(String alias) {
        if (alias.equals("latest")) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "alias",
                    "`latest` always names the newest version; " + "it cannot be set or removed.");
        }
        if (!ALIAS.matcher(alias).matches()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "alias",
                    "An alias is 1 to 32 characters of a-z, 0-9, " + "_ and -, starting with a letter.");
        }
        return alias;
    }

    private static int versionCursor(String param, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw ApiException.of(ErrorCode.INVALID_PARAMETER, param, "`" + param + "` must be a version number.");
        }
    }

    private static Map<String, Object> versionView(
            TemplateVersion version, Map<String, Integer> aliases, boolean withDefinition) {
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "template.version");
        json.put("template", version.templateId());
        json.put("version", version.version());
        json.put("note", version.note());
        json.put("content_hash", version.contentHash());
        json.put("questions_hash", version.questionsHash());
        json.put("question_set_key", version.questionSetKey());
        json.put("source", version.source());
        json.put("base_version", version.baseVersion().orElse(null));
        json.put(
                "aliases",
                aliases.entrySet().stream()
                        .filter(e -> e.getValue() == version.version())
                        .map(Map.Entry::getKey)
                        .toList());
        json.put("changes", version.changes());
        if (withDefinition) {
            version.definitionJson().properties().forEach(e -> json.put(e.getKey(), e.getValue()));
        }
        json.put("created_at", version.createdAtMillis() / 1000);
        json.put("created_by", version.createdBy());
        return json;
    }
}
