package dev.arbor.keys;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
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
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code /keys}: a project's inference keys, in the current project. Members manage the keys of their own projects;
 * another project's key is not found.
 */
final class KeyRoutes {
    /** The last second of the year 9999 (Unix seconds): the latest {@code expires_at} a key may have. */
    private static final long LAST_SECOND = 253_402_300_799L;

    private static final BodyField<String> PROJECT_ID = BodyField.text(OPTIONAL, CurrentProject.FIELD, 100);
    private static final BodyField<String> NAME = BodyField.text(REQUIRED, "name", 100);
    private static final BodyField<String> NEW_NAME = BodyField.text(OPTIONAL, "name", 100);
    private static final BodyField<List<String>> ROUTERS = BodyField.texts(OPTIONAL, "routers", 100, 200);
    private static final BodyField<List<String>> MODELS = BodyField.texts(OPTIONAL, "models", 100, 300);
    private static final BodyField<Long> EXPIRES_AT = BodyField.integer(OPTIONAL, "expires_at", 0, LAST_SECOND);
    private static final BodyField<JsonNode> METADATA =
            BodyField.value(OPTIONAL, "metadata", Schema.mapOf(Schema.string(KeyRules.MAX_METADATA_VALUE)));

    private static final BodyField<Long> REQUESTS_PER_MINUTE =
            BodyField.integer(OPTIONAL, "requests_per_minute", 1, KeyLimits.MOST);
    private static final BodyField<Long> TOKENS_PER_MINUTE =
            BodyField.integer(OPTIONAL, "tokens_per_minute", 1, KeyLimits.MOST);
    /** Sent, it replaces both limits (a limit it leaves out is none); {@code null} removes them. */
    private static final BodyField.Group LIMITS =
            BodyField.group(OPTIONAL, "limits", BodySpec.closed("limits", REQUESTS_PER_MINUTE, TOKENS_PER_MINUTE));

    static final BodySpec NEW_KEY =
            BodySpec.closed("an inference key", PROJECT_ID, NAME, ROUTERS, MODELS, EXPIRES_AT, METADATA, LIMITS);
    static final BodySpec CHANGE = BodySpec.closed(
            "an inference key's change", PROJECT_ID, NEW_NAME, ROUTERS, MODELS, EXPIRES_AT, METADATA, LIMITS);

    private static final QueryParam INCLUDE_REVOKED =
            new QueryParam("include_revoked", Schema.oneOf("true", "false"), "true lists revoked keys too.");
    private static final Schema.Obj KEY = Schema.object()
            .required("id", Schema.string())
            .required("object", Schema.oneOf("inference_key"))
            .required("project_id", Schema.string())
            .required("name", Schema.string())
            .required("hint", Schema.string())
            .required("status", Schema.oneOf("active", "expired", "revoked"))
            .required("routers", Schema.arrayOf(Schema.string()))
            .required("models", Schema.arrayOf(Schema.string()))
            .required("metadata", Schema.mapOf(Schema.string()))
            .required("created_at", Schema.integer())
            .required("expires_at", Schema.nullable(Schema.integer()))
            .required("last_used_at", Schema.nullable(Schema.integer()))
            .required("revoked_at", Schema.nullable(Schema.integer()))
            .required(
                    "limits",
                    Schema.object()
                            .required("requests_per_minute", Schema.nullable(Schema.integer()))
                            .required("tokens_per_minute", Schema.nullable(Schema.integer())));
    private static final Schema CREATED =
            KEY.required("key", Schema.string()).required("warnings", Schema.arrayOf(Schema.object()));

    private final KeyStore store;
    private final Access access;
    private Optional<KeySpending> spending = Optional.empty();

    KeyRoutes(KeyStore store, Access access) {
        this.store = requireNonNull(store, "store");
        this.access = requireNonNull(access, "access");
    }

    void acceptSpending(KeySpending spending) {
        this.spending = Optional.of(spending);
    }

    void addTo(Routes routes) {
        // a change and a revocation answer as a read does, so that a keyed one cut off by a crash is answered again
        Schema one =
                spending.map(s -> (Schema) KEY.required("spend", s.schema())).orElse(KEY);
        routes.group("keys")
                .post(
                        "/keys",
                        "Create an inference key in the current project (its secret, sk-arb-..., is shown once)",
                        this::create)
                .body(NEW_KEY.schema())
                .header(CurrentProject.HEADER)
                .created(CREATED)
                .get("/keys", "The inference keys of the current project, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .query(INCLUDE_REVOKED)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(KEY))
                .get(
                        "/keys/{key_id}",
                        "An inference key, with what it spent today, in total and in its budgets",
                        this::get)
                .header(CurrentProject.HEADER)
                .ok(spending.map(s -> (Schema) KEY.required("spend", s.schema()))
                        .orElse(KEY))
                .patch(
                        "/keys/{key_id}",
                        "Rename an inference key, or change what it may call, its expiry or its metadata",
                        this::change)
                .body(CHANGE.schema())
                .header(CurrentProject.HEADER)
                .ok(one)
                .delete(
                        "/keys/{key_id}",
                        "Revoke an inference key: every server sharing the database refuses it from the next request",
                        this::revoke)
                .header(CurrentProject.HEADER)
                .ok(one);
    }

    /** A body's key fields, read and checked; its problems thrown, its unknown fields' warnings answered. */
    private record Read(Optional<String> projectId, KeyStore.Fields fields, List<Warning> warnings) {}

    private Read read(BodySpec spec, BodyField<String> name, Context ctx) {
        ObjectNode json = Requests.jsonObject(ctx);
        BodyReader body = spec.reader(json);
        Optional<String> projectId = PROJECT_ID.read(body);
        Optional<String> named = name.read(body).map(String::strip);
        if (named.map(String::isEmpty).orElse(false)) {
            body.reject("name", ErrorCode.INVALID_FIELD, "must not be blank");
        }
        Optional<List<String>> routers = ROUTERS.read(body);
        Optional<List<String>> models = MODELS.read(body);
        Optional<Long> expiresAt = EXPIRES_AT.read(body);
        KeyRules.checkExpiry(expiresAt, store.nowMillis(), body);
        Optional<Map<String, String>> metadata = KeyRules.metadata(METADATA.read(body), body);
        Optional<KeyLimits> limits = LIMITS.read(body)
                .map(group -> new KeyLimits(REQUESTS_PER_MINUTE.read(group), TOKENS_PER_MINUTE.read(group)))
                .or(() -> json.has(LIMITS.name()) ? Optional.of(KeyLimits.NONE) : Optional.empty());
        List<Warning> warnings = body.finish();
        return new Read(
                projectId,
                new KeyStore.Fields(
                        named,
                        routers,
                        models,
                        metadata,
                        expiresAt.map(seconds -> Optional.of(seconds * 1000)),
                        limits),
                warnings);
    }

    private void create(Context ctx) {
        Read read = read(NEW_KEY, NAME, ctx);
        ProjectId project = access.currentProject().required(ctx, read.projectId());
        KeyStore.Created created = store.create(project.value(), read.fields());
        Responses.created(
                ctx,
                "/keys/" + created.key().id(),
                new KeyReplies.Created(
                        KeyReplies.KeyJson.of(created.key(), store.nowMillis()), created.secret(), read.warnings()));
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx);
        Optional<Set<String>> projects = project.<Optional<Set<String>>>map(p -> Optional.of(Set.of(p.value())))
                .orElseGet(() -> principal.isAdmin() ? Optional.empty() : Optional.of(principal.projects()));
        boolean includeRevoked =
                INCLUDE_REVOKED.read(ctx).filter("true"::equals).isPresent();
        long now = store.nowMillis();
        Responses.ok(
                ctx,
                Responses.page(
                        store.list(PageParams.from(ctx), projects, includeRevoked),
                        InferenceKey::id,
                        key -> KeyReplies.KeyJson.of(key, now)));
    }

    private void get(Context ctx) {
        answer(ctx, visible(ctx, Optional.empty()));
    }

    /** One key as a read, a change and a revocation answer it: with what it spent. */
    private void answer(Context ctx, InferenceKey key) {
        KeyReplies.KeyJson json = KeyReplies.KeyJson.of(key, store.nowMillis());
        if (spending.isEmpty()) {
            Responses.ok(ctx, json);
            return;
        }
        Responses.ok(ctx, new KeyReplies.WithSpend(json, spending.get().of(key.id())));
    }

    private void change(Context ctx) {
        Read read = read(CHANGE, NEW_NAME, ctx);
        InferenceKey key = visible(ctx, read.projectId());
        InferenceKey changed = store.update(key.id(), read.fields()).orElseThrow(() -> notFound(key.id()));
        answer(ctx, changed);
    }

    private void revoke(Context ctx) {
        InferenceKey key = visible(ctx, Optional.empty());
        InferenceKey revoked = store.revoke(key.id()).orElseThrow(() -> notFound(key.id()));
        answer(ctx, revoked);
    }

    /**
     * The path's key, when it is in the current project (if one is named) and the caller may act in its project;
     * otherwise 404, as if there were none.
     */
    private InferenceKey visible(Context ctx, Optional<String> projectId) {
        Optional<ProjectId> current = access.currentProject().named(ctx, projectId);
        Principal principal = Access.principal(ctx);
        String id = ctx.pathParam("key_id");
        return store.find(id)
                .filter(key -> principal.mayActIn(key.projectId()))
                .filter(key ->
                        current.map(p -> p.value().equals(key.projectId())).orElse(true))
                .orElseThrow(() -> notFound(id));
    }

    private static ApiException notFound(String id) {
        return ApiException.of(
                ErrorCode.KEY_NOT_FOUND, "key_id", "There is no inference key '" + id + "' in a project you may use.");
    }
}
