package dev.arbor.events;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.access.ProjectId;
import dev.arbor.events.SharedConnection.PreviousSecret;
import dev.arbor.events.SharedConnectionStore.Visible;
import dev.arbor.events.providers.EventCatalog;
import dev.arbor.events.providers.ProviderDescriptor;
import dev.arbor.events.providers.ProviderDescriptor.CredentialField;
import dev.arbor.events.providers.SignatureScheme;
import dev.arbor.events.providers.SigningSecret;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
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
import dev.arbor.platform.secrets.Digests;
import dev.arbor.platform.webhooks.StandardWebhookSignature;
import io.javalin.http.Context;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Shared event connections (contract 2.2, 4.3, 5): a provider's credentials, checked against its descriptor and
 * sealed, and the projects that may use the connection. The webhook URL and a signing secret Arbor generates are
 * shown once, at creation (a rotation shows its new secret once); reads show only which secret fields are set.
 */
final class SharedConnectionRoutes {
    /** How long a replaced signing secret is still accepted, so that the provider can switch without losing events. */
    static final Duration ROTATION_GRACE = Duration.ofHours(24);

    private static final int MAX_PROJECTS = 100;
    private static final int MAX_CREDENTIAL_LENGTH = 4096;
    private static final int MIN_STANDARD_KEY_BYTES = 24;
    private static final int MAX_STANDARD_KEY_BYTES = 64;
    private static final String NAME_REFUSAL = "must be a non-empty string of at most 200 characters";
    private static final BodyField.Worded<String> NAME = BodyField.text(OPTIONAL, "name", 200)
            .matching(Pattern.compile("[\\s\\S]*\\S[\\s\\S]*"), NAME_REFUSAL)
            .refusedAs(NAME_REFUSAL);
    private static final BodyField.Value CREDENTIALS =
            BodyField.value(OPTIONAL, "credentials", Schema.mapOf(Schema.string(MAX_CREDENTIAL_LENGTH)));
    private static final BodyField.Value PROJECT_IDS =
            BodyField.value(OPTIONAL, "project_ids", Schema.nullable(Schema.arrayOf(Schema.string(), MAX_PROJECTS)));
    private static final BodySpec CHANGE =
            BodySpec.closed("a shared event connection's update", NAME, CREDENTIALS, PROJECT_IDS);
    private static final QueryParam PROJECT_ID = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "Only the global connections and those shared with this project (X-Project-Id when left out).");
    private static final String CONNECTION_ID = "connection_id";

    private final EventCatalog catalog;
    private final BodyField.Choice provider;
    private final BodySpec create;
    private final SharedConnectionStore connections;
    private final Access access;
    private final Supplier<String> publicUrl;
    private final EventSubscribers subscribers;
    private final Clock clock;

    /** @param publicUrl the address providers reach this server at, without a trailing slash */
    SharedConnectionRoutes(
            EventCatalog catalog,
            SharedConnectionStore connections,
            Access access,
            Supplier<String> publicUrl,
            EventSubscribers subscribers,
            Clock clock) {
        this.catalog = requireNonNull(catalog, "catalog");
        this.provider = BodyField.choice(
                REQUIRED,
                "provider",
                catalog.names(),
                "must be a provider of the catalog: one of " + String.join(", ", catalog.names()));
        this.create = BodySpec.closed("a shared event connection", NAME, provider, CREDENTIALS, PROJECT_IDS);
        this.connections = requireNonNull(connections, "connections");
        this.access = requireNonNull(access, "access");
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
        this.subscribers = requireNonNull(subscribers, "subscribers");
        this.clock = requireNonNull(clock, "clock");
    }

    void addTo(Routes routes) {
        routes.group("events")
                .post(
                        "/events/shared-connections",
                        "Connect a provider's webhooks, global (no project_ids, admins only) or shared with projects; "
                                + "answers the webhook URL, and a signing secret Arbor generates, once",
                        this::create)
                .body(create.schema())
                .header(CurrentProject.HEADER)
                .created(ApiShapes.SHARED_CONNECTION_CREATED)
                .get(
                        "/events/shared-connections",
                        "The shared event connections a project may use (project_id or X-Project-Id), or all an "
                                + "admin may see",
                        this::list)
                .query(PageParams.PARAMETERS)
                .query(PROJECT_ID)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.SHARED_CONNECTION))
                .get("/events/shared-connections/{connection_id}", "A shared event connection", this::get)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.SHARED_CONNECTION)
                .patch(
                        "/events/shared-connections/{connection_id}",
                        "Rename a shared event connection, replace its share set, or rotate its credentials (the "
                                + "previous signing secret stays valid for 24 hours)",
                        this::update)
                .body(CHANGE.schema())
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.SHARED_CONNECTION_CHANGED)
                .delete(
                        "/events/shared-connections/{connection_id}",
                        "Delete a shared event connection with its subscriptions",
                        this::delete)
                .header(CurrentProject.HEADER)
                .ok(ApiShapes.SHARED_CONNECTION_DELETED);
    }

    private void create(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> current = access.currentProject().named(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = create.reader(body);
        Problems problems = reader.problems();
        Optional<Share> share = shareSet(reader, principal, current, List.of());
        Optional<ProviderDescriptor> descriptor = provider.read(reader).flatMap(catalog::find);
        Optional<String> name = NAME.read(reader).map(String::strip);
        Optional<Credentials> credentials =
                descriptor.flatMap(d -> credentials(reader, d, body.path("credentials"), false));
        problems.throwIfAny();
        Share scope = share.orElseThrow();
        Credentials given = credentials.orElseThrow();
        Instant now = clock.instant();
        String hookToken = Base64.getUrlEncoder().withoutPadding().encodeToString(Ids.randomBytes(32));
        var connection = new SharedConnection(
                Ids.next("esc"),
                name.orElse(descriptor.orElseThrow().name()),
                descriptor.orElseThrow().provider(),
                scope.global(),
                scope.projects(),
                given.settings(),
                given.secrets(),
                Optional.empty(),
                now,
                now);
        connections.create(connection, Digests.sha256Hex(hookToken));
        Map<String, Object> json = json(connection, descriptor.orElseThrow(), principal);
        json.put("webhook_url", publicUrl.get() + "/events/hooks/" + hookToken);
        given.generated().ifPresent(secret -> json.put("signing_secret", secret));
        Responses.created(ctx, "/events/shared-connections/" + connection.id(), json);
    }

    private void list(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> project = access.currentProject().named(ctx, PROJECT_ID.read(ctx));
        Visible visible = project.<Visible>map(p -> new Visible.SharedWith(Set.of(p.value())))
                .orElseGet(
                        () -> principal.isAdmin() ? new Visible.All() : new Visible.SharedWith(principal.projects()));
        Responses.ok(
                ctx,
                Responses.page(
                        connections.list(PageParams.from(ctx), visible),
                        SharedConnection::id,
                        c -> json(c, descriptorOf(c), principal)));
    }

    private void get(Context ctx) {
        // a current project the header names is checked as on every route, though the connection decides
        access.currentProject().named(ctx);
        SharedConnection connection = visible(ctx);
        Responses.ok(ctx, json(connection, descriptorOf(connection), Access.principal(ctx)));
    }

    private void update(Context ctx) {
        Principal principal = Access.principal(ctx);
        Optional<ProjectId> current = access.currentProject().named(ctx);
        SharedConnection connection = changeable(ctx, principal);
        ObjectNode body = Requests.jsonObject(ctx);
        // the signing secret is every sharing project's: a member replaces it only when all of them are its own
        if (body.has("credentials") && !connection.projects().stream().allMatch(principal::mayActIn)) {
            throw ApiException.of(
                    ErrorCode.ADMIN_REQUIRED,
                    "credentials",
                    "Only an admin token may change the credentials of connection '" + connection.id() + "': it is "
                            + "shared with other projects too, whose deliveries its signing secret checks.");
        }
        BodyReader reader = CHANGE.reader(body);
        Problems problems = reader.problems();
        ProviderDescriptor descriptor = descriptorOf(connection);
        SharedConnection changed = connection;
        if (body.has("project_ids")) {
            Optional<Share> share = shareSet(reader, principal, current, connection.projects());
            if (share.isPresent()) {
                changed = changed.sharedWith(share.get().global(), share.get().projects());
            }
        }
        Optional<String> name = NAME.read(reader).map(String::strip);
        if (name.isPresent()) {
            changed = changed.renamed(name.get());
        }
        Optional<Credentials> credentials = body.has("credentials")
                ? credentials(reader, descriptor, body.path("credentials"), true)
                : Optional.empty();
        problems.throwIfAny();
        if (credentials.isPresent()) {
            changed = rotated(changed, credentials.get(), descriptor);
        }
        connections.update(changed, clock.instant());
        boolean narrowed =
                !changed.global() && (connection.global() || !changed.projects().containsAll(connection.projects()));
        int removed = narrowed ? subscribers.unsubscribe(connection.id(), Set.copyOf(changed.projects())) : 0;
        Map<String, Object> json = json(find(connection.id()), descriptor, principal);
        credentials.flatMap(Credentials::generated).ifPresent(secret -> json.put("signing_secret", secret));
        // the triggers of the projects left out go with their subscriptions: never silently
        json.put("subscriptions_removed", removed);
        Responses.ok(ctx, json);
    }

    private void delete(Context ctx) {
        access.currentProject().named(ctx);
        Principal principal = Access.principal(ctx);
        SharedConnection connection = changeable(ctx, principal);
        // deleting takes the connection from every project of its share set: a member may do it only for its own
        if (!connection.projects().stream().allMatch(principal::mayActIn)) {
            throw CurrentProject.forbidden(
                    CONNECTION_ID,
                    "This token may not delete connection '" + connection.id() + "': it is shared with other "
                            + "projects too, which only an admin may take it from.");
        }
        int removed = subscribers.unsubscribe(connection.id(), Set.of());
        connections.delete(connection.id());
        var json = new LinkedHashMap<String, Object>();
        json.put("id", connection.id());
        json.put("object", "event.shared_connection.deleted");
        json.put("deleted", true);
        json.put("subscriptions_removed", removed);
        Responses.ok(ctx, json);
    }

    /**
     * The new credentials in place of the connection's own; when the signing secret changes, the one it replaces is
     * kept for {@link #ROTATION_GRACE}.
     */
    private SharedConnection rotated(
            SharedConnection connection, Credentials credentials, ProviderDescriptor descriptor) {
        String field = descriptor.delivery().signature().secretField();
        Optional<String> before = connection.credential(field);
        Optional<String> after = Optional.ofNullable(credentials.secrets().get(field))
                .or(() -> Optional.ofNullable(credentials.settings().get(field)))
                .map(JsonNode::asText);
        Optional<PreviousSecret> previous = before.isPresent() && !before.equals(after)
                ? Optional.of(new PreviousSecret(
                        new SigningSecret(before.get()), clock.instant().plus(ROTATION_GRACE)))
                : connection.previous();
        return connection.withCredentials(credentials.settings(), credentials.secrets(), previous);
    }

    /** Global (no {@code project_ids}), or shared with these projects. */
    private record Share(boolean global, List<String> projects) {
        Share {
            projects = List.copyOf(projects);
        }
    }

    /**
     * Contract 2.2's scope: no {@code project_ids} is global and needs an admin; otherwise a non-empty list,
     * deduplicated, with the current project always in it. A member names only its own projects: the others of
     * {@code before}, which it does not see, stay. Empty when the list has problems (recorded).
     */
    private Optional<Share> shareSet(
            BodyReader reader, Principal principal, Optional<ProjectId> current, List<String> before) {
        Problems problems = reader.problems();
        JsonNode given = PROJECT_IDS.read(reader).orElse(NullNode.getInstance());
        if (given.isNull()) {
            if (!principal.isAdmin()) {
                throw ApiException.of(
                        ErrorCode.ADMIN_REQUIRED,
                        "project_ids",
                        "Only an admin token may make a global connection: name the projects to share it with in "
                                + "`project_ids`.");
            }
            return Optional.of(new Share(true, List.of()));
        }
        if (!given.isArray() || given.isEmpty() || given.size() > MAX_PROJECTS) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "project_ids",
                    "`project_ids` must list 1 to " + MAX_PROJECTS + " project ids; leave it out for a global "
                            + "connection.");
            return Optional.empty();
        }
        int earlier = problems.list().size();
        var projects = new LinkedHashSet<String>();
        var params = new LinkedHashMap<String, String>();
        for (int i = 0; i < given.size(); i++) {
            JsonNode id = given.get(i);
            String param = ParamPath.index("project_ids", i);
            if (!id.isTextual() || id.textValue().isBlank()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a project id.");
            } else if (projects.add(id.textValue())) {
                params.put(id.textValue(), param);
            }
        }
        current.ifPresent(p -> projects.add(p.value()));
        if (problems.list().size() > earlier) {
            return Optional.empty();
        }
        for (String project : projects) {
            if (!principal.mayActIn(project)) {
                String param = params.getOrDefault(project, "project_ids");
                throw CurrentProject.forbidden(
                        param,
                        "This token may not share a connection with project '" + project + "' (`" + param
                                + "`): only an admin shares one beyond its own projects.");
            }
        }
        before.stream().filter(p -> !principal.mayActIn(p)).forEach(projects::add);
        List<String> unknown = access.unknownProjects(projects);
        if (!unknown.isEmpty()) {
            String param = params.getOrDefault(unknown.getFirst(), "project_ids");
            throw ApiException.of(
                    ErrorCode.PROJECT_NOT_FOUND,
                    param,
                    "There is no project '" + unknown.getFirst() + "' (`" + param + "`).");
        }
        return Optional.of(new Share(false, projects.stream().sorted().toList()));
    }

    /**
     * Credentials as the descriptor asks for them, split into plain and secret fields; a signing secret Arbor may
     * choose (Standard Webhooks) is the one the sender showed when given, and generated here when left out.
     *
     * @param generated the signing secret Arbor generated, to show once
     */
    private record Credentials(ObjectNode settings, ObjectNode secrets, Optional<String> generated) {}

    private static Optional<Credentials> credentials(
            BodyReader reader, ProviderDescriptor descriptor, JsonNode given, boolean rotating) {
        Problems problems = reader.problems();
        JsonNode values = given.isMissingNode() || given.isNull() ? Json.object() : given;
        if (!values.isObject()) {
            problems.add(ErrorCode.INVALID_FIELD, "credentials", "`credentials` must be an object of strings.");
            return Optional.empty();
        }
        int before = problems.list().size();
        problems.unknownFields(
                values,
                descriptor.credentials().stream().map(CredentialField::key).collect(Collectors.toSet()),
                "credentials",
                descriptor.name() + "'s credentials");
        ObjectNode settings = Json.object();
        ObjectNode secrets = Json.object();
        Optional<String> generated = Optional.empty();
        for (CredentialField field : descriptor.credentials()) {
            String param = ParamPath.key("credentials", field.key());
            JsonNode value = values.path(field.key());
            if (field.generated() && (value.isMissingNode() || value.isNull())) {
                generated = Optional.of(generate(descriptor.delivery().signature()));
                secrets.put(field.key(), generated.get());
                continue;
            }
            if (value.isMissingNode() || value.isNull()) {
                if (field.required()) {
                    problems.add(ErrorCode.MISSING_FIELD, param, "`" + param + "` is required: " + field.label() + ".");
                }
                continue;
            }
            if (!value.isTextual()
                    || value.textValue().isBlank()
                    || value.textValue().length() > MAX_CREDENTIAL_LENGTH) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` must be a non-empty string of at most " + MAX_CREDENTIAL_LENGTH
                                + " characters.");
                continue;
            }
            if (field.type().equals("url") && !isWebUrl(value.textValue())) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be an absolute http or https URL.");
                continue;
            }
            if (field.generated()
                    && descriptor.delivery().signature() instanceof SignatureScheme.StandardWebhooks
                    && !isStandardWebhooksSecret(value.textValue())) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        param,
                        "`" + param + "` must be a Standard Webhooks secret as the sender shows it: `"
                                + StandardWebhookSignature.SECRET_PREFIX + "` then the base64 of "
                                + MIN_STANDARD_KEY_BYTES + " to " + MAX_STANDARD_KEY_BYTES + " random bytes; leave "
                                + "it out for Arbor to generate one" + (rotating ? " anew." : "."));
                continue;
            }
            (field.secret() ? secrets : settings).put(field.key(), value.textValue());
        }
        return problems.list().size() == before
                ? Optional.of(new Credentials(settings, secrets, generated))
                : Optional.empty();
    }

    /** A new signing secret of 256 random bits, written as the scheme reads it. */
    private static String generate(SignatureScheme scheme) {
        return scheme instanceof SignatureScheme.StandardWebhooks
                ? StandardWebhookSignature.newSecret()
                : Base64.getUrlEncoder().withoutPadding().encodeToString(Ids.randomBytes(32));
    }

    /**
     * A secret as Standard Webhooks senders generate and show it: the prefix, then the base64 of a key of the length
     * the standard suggests (24 to 64 bytes); a shorter key is too weak to sign with, and anything else is a paste
     * gone wrong that would refuse every delivery.
     */
    private static boolean isStandardWebhooksSecret(String secret) {
        if (!secret.startsWith(StandardWebhookSignature.SECRET_PREFIX)) {
            return false;
        }
        try {
            int length = Base64.getDecoder()
                    .decode(secret.substring(StandardWebhookSignature.SECRET_PREFIX.length()))
                    .length;
            return length >= MIN_STANDARD_KEY_BYTES && length <= MAX_STANDARD_KEY_BYTES;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static boolean isWebUrl(String text) {
        try {
            URI uri = new URI(text);
            return (uri.getScheme() != null && Set.of("http", "https").contains(uri.getScheme()))
                    && uri.getHost() != null;
        } catch (URISyntaxException e) {
            return false;
        }
    }

    private SharedConnection find(String id) {
        return connections.find(id).orElseThrow(() -> EventConnections.notFound(id));
    }

    /** The path's connection, when the caller may see it: global, or shared with one of a member's projects. */
    private SharedConnection visible(Context ctx) {
        SharedConnection connection = find(ctx.pathParam(CONNECTION_ID));
        EventConnections.requireVisible(
                Access.principal(ctx), connection.id(), connection.global(), connection.projects());
        return connection;
    }

    /** The path's connection, when the caller may change it: a global one needs an admin. */
    private SharedConnection changeable(Context ctx, Principal principal) {
        SharedConnection connection = visible(ctx);
        if (connection.global() && !principal.isAdmin()) {
            throw ApiException.of(
                    ErrorCode.ADMIN_REQUIRED,
                    CONNECTION_ID,
                    "Only an admin token may change or delete a global connection.");
        }
        return connection;
    }

    private ProviderDescriptor descriptorOf(SharedConnection connection) {
        return catalog.find(connection.provider())
                .orElseThrow(
                        () -> new IllegalStateException("provider gone from the catalog: " + connection.provider()));
    }

    /**
     * A connection as reads show it: secret fields only as {@code <key>_set}, and to a member only its own projects
     * of the share set (it learns nothing of others).
     */
    private Map<String, Object> json(SharedConnection connection, ProviderDescriptor descriptor, Principal principal) {
        var credentials = new LinkedHashMap<String, Object>();
        ObjectNode settings = connection.settings();
        ObjectNode secrets = connection.secrets();
        for (CredentialField field : descriptor.credentials()) {
            if (field.secret()) {
                credentials.put(field.key() + "_set", secrets.has(field.key()));
            } else if (settings.has(field.key())) {
                credentials.put(field.key(), settings.get(field.key()).asText());
            }
        }
        var json = new LinkedHashMap<String, Object>();
        json.put("id", connection.id());
        json.put("object", "event.shared_connection");
        json.put("name", connection.name());
        json.put("provider", connection.provider());
        json.put("global", connection.global());
        json.put(
                "project_ids",
                connection.projects().stream().filter(principal::mayActIn).toList());
        json.put("credentials", credentials);
        json.put(
                "previous_secret_expires_at",
                connection.previous().map(p -> p.expiresAt().getEpochSecond()).orElse(null));
        json.put("created_at", connection.createdAt().getEpochSecond());
        json.put("updated_at", connection.updatedAt().getEpochSecond());
        json.put("refused_not_recorded", connections.refusedNotRecorded(connection.id()));
        return json;
    }
}
