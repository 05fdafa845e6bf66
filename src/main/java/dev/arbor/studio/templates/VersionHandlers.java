package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.VersionChanges;
import dev.arbor.studio.templates.versions.TemplateStore;
import dev.arbor.studio.templates.versions.TemplateVersion;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The handlers of a template's version routes: list and get versions, diff two, restore one, the variables' schema,
 * and aliases ({@link TemplateRoutes} declares the routes, in their order).
 */
final class VersionHandlers {
    private static final Pattern ALIAS = Pattern.compile("[a-z][a-z0-9_-]{0,31}");
    private static final BodyField<String> NOTE = new BodyField.Text(
                    "note", BodyField.Presence.OPTIONAL, 500, Optional.empty(), "")
            .refusedAs("must be a string of at most 500 characters");
    /** A restore's body, which may be empty (an action's route declares none): the new version's note. */
    private static final BodySpec RESTORE_IN = BodySpec.of(NOTE);

    private static final BodyField<Long> VERSION = new BodyField.Whole(
                    "version", BodyField.Presence.REQUIRED, 1, Integer.MAX_VALUE)
            .refusedAs("must be a version number");
    /** An alias's body: the version it names. */
    static final BodySpec ALIAS_IN = BodySpec.of(VERSION);

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
        TemplateService.Versions found = templates.versions(id, page, after, before);
        List<TemplateVersion> rows = found.versions();
        Responses.ok(
                ctx,
                new VersionView.Page(
                        rows.stream()
                                .map(version -> VersionView.of(version, found.aliases(), withDefinition))
                                .toList(),
                        rows.isEmpty() ? null : rows.getFirst().version(),
                        rows.isEmpty() ? null : rows.getLast().version(),
                        found.more()));
    }

    void version(Context ctx) {
        var loaded = templates.version(TemplateRoutes.templateId(ctx), ctx.pathParam("version"));
        Responses.ok(ctx, VersionView.of(loaded.version(), loaded.aliases(), true));
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
        Responses.ok(
                ctx,
                new VersionView.Diff(
                        id,
                        from.version().version(),
                        to.version().version(),
                        changes.get("class"),
                        changes.get("breaking_for_callers"),
                        changes.get("questions"),
                        changes.get("summary"),
                        JsonDiff.between(
                                from.version().definitionJson(), to.version().definitionJson())));
    }

    void restore(Context ctx) {
        Optional<String> note = Optional.empty();
        if (Requests.body(ctx).length > 0) {
            var body = RESTORE_IN.reader(Requests.jsonObject(ctx));
            note = NOTE.read(body);
            body.finish();
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
        var body = ALIAS_IN.reader(Requests.jsonObject(ctx));
        Optional<Long> version = VERSION.read(body);
        body.finish();
        var change = templates.setAlias(id, alias, version.orElseThrow().intValue());
        Responses.ok(
                ctx,
                new VersionView.Alias(
                        id,
                        change.alias(),
                        change.version(),
                        change.previous().orElse(null),
                        change.updatedAtMillis() / 1000));
    }

    void deleteAlias(Context ctx) {
        String alias = checkAlias(ctx.pathParam("alias"));
        templates.deleteAlias(TemplateRoutes.templateId(ctx), alias);
        Responses.ok(ctx, Deleted.of(alias, "template.alias"));
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
}
