package dev.arbor.connectors.gateways;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.CurrentProject;
import dev.arbor.access.ProjectId;
import dev.arbor.connectors.gateways.Gateway.Scope;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
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
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import io.javalin.http.Context;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Gateways: MCP servers configured here, from the registry or custom, with sealed credentials, a scope (enabled,
 * global, projects) and the client surfaces that may use them; and which of them an agent of a project may use.
 */
final class GatewayRoutes {
    private static final Set<String> CLIENTS = GatewayValidator.CLIENTS;
    private static final Pattern NOT_BLANK = Pattern.compile("[\\s\\S]*\\S[\\s\\S]*");
    private static final BodyField.Value CONNECTOR_ID = BodyField.value(REQUIRED, "connector_id", Schema.string());
    private static final BodyField.Worded<String> NAME = text(OPTIONAL, "name", 200);
    private static final BodyField.Worded<String> CUSTOM_NAME = text(REQUIRED, "name", 200);
    private static final BodyField.Worded<String> URL = text(OPTIONAL, "url", 2048);
    private static final BodyField.Worded<String> TRANSPORT = text(OPTIONAL, "transport", 20);
    private static final BodyField.Worded<String> AUTH_TYPE = text(OPTIONAL, "auth_type", 20);
    private static final BodyField.Worded<String> DESCRIPTION = text(OPTIONAL, "description", 2000);
    private static final BodyField.Worded<String> COMMAND = text(OPTIONAL, "command", 1024);
    private static final BodyField.Value ARGS =
            BodyField.value(OPTIONAL, "args", Schema.arrayOf(Schema.string(4096), 100));
    private static final BodyField.Value CREDENTIALS =
            BodyField.value(OPTIONAL, "credentials", Schema.mapOf(Schema.any()));
    private static final BodyField.Value SCOPE = BodyField.value(OPTIONAL, "scope", ApiShapes.SCOPE_IN);
    private static final BodyField.Value CLIENTS_FIELD = BodyField.value(
            OPTIONAL,
            "clients",
            Schema.arrayOf(Schema.oneOf(CLIENTS.stream().sorted().toArray(String[]::new))));
    private static final BodyField.Flag ENABLED = BodyField.flag(OPTIONAL, "enabled");
    private static final BodySpec CONFIGURE =
            BodySpec.closed("a gateway from the registry", CONNECTOR_ID, NAME, CREDENTIALS, SCOPE, CLIENTS_FIELD);
    /** A remote server's url and auth_type, or a stdio server's command and args: required as the transport says. */
    private static final BodySpec CUSTOM = BodySpec.closed(
            "a custom gateway",
            CUSTOM_NAME,
            URL,
            TRANSPORT,
            AUTH_TYPE,
            DESCRIPTION,
            CREDENTIALS,
            SCOPE,
            CLIENTS_FIELD,
            COMMAND,
            ARGS);
    /** Left out, the gateway's state flips. */
    private static final BodySpec TOGGLE = BodySpec.of(ENABLED);

    private static final BodySpec CHANGE = BodySpec.closed("a gateway's update", CLIENTS_FIELD, SCOPE, CREDENTIALS);
    /** Unless a create says otherwise: enabled, and shared with no project until an admin says which. */
    private static final Scope CLOSED = new Scope(true, false, List.of());

    private static final QueryParam INCLUDE_DISABLED =
            new QueryParam("include_disabled", Schema.oneOf("true", "false"), "true lists disabled gateways too.");
    private static final QueryParam PROJECT_ID = new QueryParam(
            CurrentProject.FIELD,
            Schema.string(),
            "The project whose agents would use the gateways (X-Project-Id when left out).");
    private final ConnectorRegistry registry;
    private final GatewayStore gateways;
    private final Gateways lookup;
    private final GatewayAuthorization authorizations;
    private final GatewayUsers users;
    private final Access access;
    private final GatewayValidator validator;
    private final OutboundPolicy policy;
    private final List<String> stdioCommands;
    private final Clock clock;

    /** @param stdioCommands the commands a stdio gateway may run */
    GatewayRoutes(
            ConnectorRegistry registry,
            GatewayStore gateways,
            Gateways lookup,
            GatewayAuthorization authorizations,
            GatewayUsers users,
            Access access,
            OutboundPolicy policy,
            List<String> stdioCommands,
            Clock clock) {
        this.registry = requireNonNull(registry, "registry");
        this.gateways = requireNonNull(gateways, "gateways");
        this.lookup = requireNonNull(lookup, "lookup");
        this.authorizations = requireNonNull(authorizations, "authorizations");
        this.users = requireNonNull(users, "users");
        this.access = requireNonNull(access, "access");
        this.validator = new GatewayValidator(access);
        this.policy = requireNonNull(policy, "policy");
        this.stdioCommands = List.copyOf(stdioCommands);
        this.clock = requireNonNull(clock, "clock");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .post("/connectors/gateways", "Configure a gateway from a registry connector", this::configure)
                .body(CONFIGURE.schema())
                .created(ApiShapes.GATEWAY)
                .post("/connectors/custom", "Configure a gateway to an MCP server of your own", this::custom)
                .body(CUSTOM.schema())
                .created(ApiShapes.GATEWAY)
                .get(
                        "/connectors/custom/credential-schemas",
                        "The credentials a custom gateway takes, one schema per auth type",
                        this::customCredentialSchemas)
                .ok(Schema.list(ApiShapes.CREDENTIAL_SCHEMA))
                .get(
                        "/connectors/configured",
                        "List configured gateways (include_disabled=true for all)",
                        this::configured)
                .query(PageParams.PARAMETERS)
                .query(INCLUDE_DISABLED)
                .ok(Schema.list(ApiShapes.GATEWAY))
                .get("/connectors/configured/{gateway_id}", "A configured gateway (enabled or not)", this::get)
                .ok(ApiShapes.GATEWAY)
                .patch("/connectors/configured/{gateway_id}/toggle", "Enable or disable a gateway", this::toggle)
                .body(TOGGLE.schema())
                .ok(ApiShapes.GATEWAY)
                .patch(
                        "/connectors/configured/{gateway_id}",
                        "Change a gateway's clients, scope or credentials",
                        this::update)
                .body(CHANGE.schema())
                .ok(ApiShapes.GATEWAY_CHANGED)
                .delete(
                        "/connectors/gateways/{gateway_id}",
                        "Delete a gateway with its tools and every agent's " + "attachment to it",
                        this::delete)
                .ok(ApiShapes.GATEWAY_DELETED)
                .get(
                        "/connectors/available",
                        "The enabled gateways an agent of a project may use (project_id or X-Project-Id)",
                        this::available)
                .query(PROJECT_ID)
                .header(CurrentProject.HEADER)
                .ok(Schema.list(ApiShapes.GATEWAY));
    }

    private void configure(Context ctx) {
        Access.requireAdmin(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CONFIGURE.reader(body);
        Problems problems = reader.problems();
        JsonNode connectorId = CONNECTOR_ID.read(reader).orElse(MissingNode.getInstance());
        if (!connectorId.isTextual()) {
            // nothing else is checked without knowing the connector: this is the one problem reported
            throw ApiException.of(
                    ErrorCode.MISSING_FIELD,
                    "connector_id",
                    "`connector_id` is required: a registry " + "connector's id.");
        }
        Connector connector = registry.require(connectorId.textValue());
        boolean registers =
                connector.oauth().map(Connector.OAuthHints::supportsDcr).orElse(false);
        GatewayCredentials.Split credentials =
                GatewayCredentials.read(value(CREDENTIALS, reader), connector.authType(), registers, false, problems);
        String name = NAME.read(reader).orElse(connector.name());
        Scope scope = validator.scope(value(SCOPE, reader), CLOSED, problems);
        List<String> clients = GatewayValidator.clients(
                value(CLIENTS_FIELD, reader),
                List.copyOf(CLIENTS.stream().sorted().toList()),
                problems);
        problems.throwIfAny();
        ObjectNode settings = credentials.settings();
        defaultScopes(settings, connector);
        create(
                ctx,
                new Gateway(
                        Ids.next("gw"),
                        name,
                        Optional.of(connector.id()),
                        connector.url(),
                        connector.transport(),
                        connector.authType(),
                        connector.description(),
                        settings,
                        credentials.secret(),
                        scope,
                        clients,
                        clock.millis(),
                        clock.millis()));
    }

    private void custom(Context ctx) {
        Access.requireAdmin(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CUSTOM.reader(body);
        Problems problems = reader.problems();
        Optional<String> name = CUSTOM_NAME.read(reader);
        Optional<Transport> transport = TRANSPORT
                .read(reader)
                .map(t -> Transport.of(t).orElseGet(() -> {
                    problems.add(
                            ErrorCode.INVALID_FIELD,
                            "transport",
                            "`transport` must be streamable_http, sse or " + "stdio.");
                    return null;
                }));
        boolean local = transport.orElse(null) == Transport.STDIO;
        ObjectNode launch = Json.object();
        Optional<String> url = local ? command(body, reader, launch) : remoteUrl(body, reader);
        Optional<AuthType> auth = (local ? AUTH_TYPE.read(reader) : requiredHere(AUTH_TYPE, reader, body))
                .flatMap(a -> AuthType.of(a).or(() -> {
                    problems.add(ErrorCode.INVALID_FIELD, "auth_type", "`auth_type` must be none, headers or oauth.");
                    return Optional.empty();
                }));
        if (local && auth.filter(a -> a != AuthType.NONE).isPresent()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "auth_type",
                    "`auth_type` must be none for a stdio server: its " + "secrets go in credentials.env.");
        }
        GatewayCredentials.Split credentials =
                GatewayCredentials.read(value(CREDENTIALS, reader), auth.orElse(AuthType.NONE), true, local, problems);
        String description = DESCRIPTION.read(reader).orElse("");
        Scope scope = validator.scope(value(SCOPE, reader), CLOSED, problems);
        List<String> clients = GatewayValidator.clients(
                value(CLIENTS_FIELD, reader), CLIENTS.stream().sorted().toList(), problems);
        problems.throwIfAny();
        ObjectNode settings = credentials.settings().setAll(launch);
        create(
                ctx,
                new Gateway(
                        Ids.next("gw"),
                        name.orElseThrow(),
                        Optional.empty(),
                        url.orElseThrow(),
                        transport.orElse(Transport.detect(url.get())),
                        auth.orElse(AuthType.NONE),
                        description,
                        settings,
                        credentials.secret(),
                        scope,
                        clients,
                        clock.millis(),
                        clock.millis()));
    }

    /**
     * What {@code credentials} of {@code POST /connectors/custom} takes for each auth type: a custom server may
     * register its OAuth clients itself, so a client id is never required, and no scopes are known for it.
     */
    private void customCredentialSchemas(Context ctx) {
        Access.requireAdmin(ctx);
        var registersItself = Optional.of(new Connector.OAuthHints(List.of(), true));
        var schemas = new ArrayList<Map<String, Object>>();
        for (AuthType auth : AuthType.values()) {
            var schema = new LinkedHashMap<String, Object>();
            schema.put("object", "connector.credential_schema");
            schema.put("auth_type", auth.wire());
            schema.put("fields", Connector.credentialSchema(auth, registersItself));
            schemas.add(schema);
        }
        List<String> ids = Arrays.stream(AuthType.values()).map(AuthType::wire).toList();
        Responses.ok(ctx, Responses.list(schemas, ids, false));
    }

    private Optional<String> remoteUrl(ObjectNode body, BodyReader reader) {
        Problems problems = reader.problems();
        for (String field : new String[] {"command", "args"}) {
            if (body.has(field)) {
                problems.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` is for stdio servers only.");
            }
        }
        Optional<String> url = requiredHere(URL, reader, body);
        url.ifPresent(u -> {
            try {
                policy.check(URI.create(u));
            } catch (IllegalArgumentException | OutboundRefusedException e) {
                problems.add(ErrorCode.INVALID_FIELD, "url", "`url` cannot be used: " + e.getMessage());
            }
        });
        return url;
    }

    /**
     * A stdio server: a command this installation allows ({@code ARBOR_MCP_STDIO_COMMANDS}) and its arguments, kept
     * in {@code launch}; its address reads {@code stdio:<command>}.
     */
    private Optional<String> command(ObjectNode body, BodyReader reader, ObjectNode launch) {
        Problems problems = reader.problems();
        if (body.has("url")) {
            problems.add(
                    ErrorCode.INVALID_FIELD, "url", "`url` is for remote servers: a stdio server has a " + "command.");
        }
        Optional<String> command = requiredHere(COMMAND, reader, body);
        if (command.isPresent() && !stdioCommands.contains(command.get())) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "command",
                    stdioCommands.isEmpty()
                            ? "This installation runs no stdio servers: list the commands it may run in "
                                    + "ARBOR_MCP_STDIO_COMMANDS."
                            : "`command` must be one ARBOR_MCP_STDIO_COMMANDS lists: "
                                    + String.join(", ", stdioCommands) + ".");
        }
        JsonNode args = value(ARGS, reader);
        ArrayNode kept = launch.putArray("args");
        if (!args.isMissingNode() && !args.isNull()) {
            boolean ok = args.isArray() && args.size() <= 100;
            for (JsonNode arg : args) {
                ok &= arg.isTextual() && arg.textValue().length() <= 4096;
                kept.add(arg.asText());
            }
            if (!ok) {
                problems.add(ErrorCode.INVALID_FIELD, "args", "`args` must be a list of at most 100 strings.");
            }
        }
        command.ifPresent(c -> launch.put("command", c));
        return command.map(c -> "stdio:" + c);
    }

    private void create(Context ctx, Gateway gateway) {
        gateways.create(gateway);
        Responses.created(ctx, "/connectors/configured/" + gateway.id(), json(gateway));
    }

    private void configured(Context ctx) {
        Access.requireAdmin(ctx);
        boolean all = INCLUDE_DISABLED.read(ctx).filter("true"::equals).isPresent();
        Responses.ok(ctx, Responses.page(gateways.list(PageParams.from(ctx), all), Gateway::id, this::json));
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, json(find(ctx.pathParam("gateway_id"))));
    }

    private void toggle(Context ctx) {
        Access.requireAdmin(ctx);
        Gateway gateway = find(ctx.pathParam("gateway_id"));
        boolean enabled = !gateway.scope().enabled();
        if (Requests.body(ctx).length > 0) {
            BodyReader body = TOGGLE.reader(Requests.jsonObject(ctx));
            enabled = ENABLED.read(body).orElse(enabled);
            body.finish();
        }
        Gateway changed = gateway.with(
                new Scope(enabled, gateway.scope().global(), gateway.scope().projects()), gateway.clients());
        gateways.update(changed);
        if (!enabled) {
            users.disconnect(gateway.id());
        }
        Responses.ok(ctx, json(find(gateway.id())));
    }

    private void update(Context ctx) {
        Access.requireAdmin(ctx);
        Gateway gateway = find(ctx.pathParam("gateway_id"));
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CHANGE.reader(body);
        Problems problems = reader.problems();
        Scope scope = validator.scope(value(SCOPE, reader), gateway.scope(), problems);
        List<String> clients = GatewayValidator.clients(value(CLIENTS_FIELD, reader), gateway.clients(), problems);
        Gateway changed = gateway.with(scope, clients);
        JsonNode credentials = value(CREDENTIALS, reader);
        if (body.has("credentials")) {
            changed = newCredentials(changed, credentials, problems);
        }
        problems.throwIfAny();
        gateways.update(changed);
        if (body.has("credentials")) {
            // tokens got with other credentials (another client, other scopes) are not these credentials' tokens
            authorizations.credentialsChanged(gateway);
            users.disconnect(gateway.id());
        }
        // an agent whose project the narrowed scope leaves out loses the gateway, and the answer says which
        Map<String, Object> json = json(find(gateway.id()));
        json.put(
                "detached_agents",
                users.detachOutside(gateway.id(), scope).stream()
                        .map(agent -> {
                            var detached = new LinkedHashMap<String, Object>();
                            detached.put("prompt_id", agent.promptId());
                            detached.put("project_id", agent.projectId());
                            return detached;
                        })
                        .toList());
        Responses.ok(ctx, json);
    }

    /**
     * The gateway with these credentials instead of its own: checked as at creation, and whole (secrets left out
     * are gone, not kept), so that what is stored is exactly what was given.
     */
    private Gateway newCredentials(Gateway gateway, JsonNode credentials, Problems problems) {
        Optional<Connector> connector = gateway.connectorId().flatMap(registry::find);
        // an entry gone from the registry leaves it to the authorization server whether clients may register
        boolean registers = connector
                .map(c -> c.oauth().map(Connector.OAuthHints::supportsDcr).orElse(false))
                .orElse(true);
        boolean local = gateway.transport() == Transport.STDIO;
        GatewayCredentials.Split split =
                GatewayCredentials.read(credentials, gateway.authType(), registers, local, problems);
        ObjectNode settings = split.settings();
        connector.ifPresent(c -> defaultScopes(settings, c));
        if (local) {
            settings.set("command", gateway.settings().path("command"));
            settings.set("args", gateway.settings().path("args"));
        }
        return gateway.withCredentials(settings, split.secret());
    }

    /** A registry connector's scopes, when the credentials name none. */
    private static void defaultScopes(ObjectNode settings, Connector connector) {
        if (!settings.has("scopes")) {
            connector
                    .oauth()
                    .filter(o -> !o.scopes().isEmpty())
                    .ifPresent(o -> o.scopes().forEach(settings.putArray("scopes")::add));
        }
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        String id = find(ctx.pathParam("gateway_id")).id();
        int toolCount = users.toolCount(id);
        int prompts = users.agentCount(id);
        if (!gateways.delete(id)) {
            throw Gateways.notFound(id);
        }
        users.disconnect(id);
        Responses.ok(
                ctx,
                Map.of(
                        "id",
                        id,
                        "object",
                        "connector.gateway.deleted",
                        "deleted",
                        true,
                        "tools_removed",
                        toolCount,
                        "agents_detached",
                        prompts));
    }

    /** Admins and members alike: a member names only its own projects, and without one sees the global gateways. */
    private void available(Context ctx) {
        Optional<ProjectId> project =
                access.currentProject().named(ctx, PROJECT_ID.read(ctx).filter(p -> !p.isBlank()));
        List<Gateway> available = gateways.available(project.map(ProjectId::value));
        Responses.ok(
                ctx,
                Responses.list(
                        available.stream().map(this::json).toList(),
                        available.stream().map(Gateway::id).toList(),
                        false));
    }

    private Gateway find(String id) {
        return lookup.require(id);
    }

    /** A sealed list of {key, value} as shown: its keys, each with {@code value_set}. */
    private static void shownKeys(Gateway gateway, String keysField, ObjectNode credentials, String field) {
        if (gateway.settings().has(keysField)) {
            var shown = credentials.putArray(field);
            gateway.settings()
                    .path(keysField)
                    .forEach(key -> shown.addObject().put("key", key.asText()).put("value_set", true));
        }
    }

    /** A text field: a non-empty string of at most {@code maxLength} characters. */
    private static BodyField.Worded<String> text(BodyField.Presence presence, String name, int maxLength) {
        String refusal = "must be a non-empty string of at most " + maxLength + " characters";
        return BodyField.text(presence, name, maxLength)
                .matching(NOT_BLANK, refusal)
                .refusedAs(refusal);
    }

    /** A field this body requires only for one kind of server (a remote one's url, a stdio one's command). */
    private static Optional<String> requiredHere(BodyField.Worded<String> field, BodyReader reader, ObjectNode body) {
        Optional<String> value = field.read(reader);
        JsonNode given = body.path(field.name());
        if (given.isMissingNode() || given.isNull()) {
            reader.problems().add(ErrorCode.MISSING_FIELD, field.name(), "`" + field.name() + "` is required.");
        }
        return value;
    }

    /** A field its handler checks itself, as JSON; left out (or null), a missing node. */
    private static JsonNode value(BodyField.Value field, BodyReader reader) {
        return field.read(reader).orElse(MissingNode.getInstance());
    }

    /**
     * A gateway as the API shows it: its credentials' plain parts, of the sealed ones only that they are set, and
     * whether it is authorized (configured and authorized are two things).
     */
    private Map<String, Object> json(Gateway gateway) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", gateway.id());
        json.put("object", "connector.gateway");
        json.put("name", gateway.name());
        json.put("connector_id", gateway.connectorId().orElse(null));
        json.put("source", gateway.connectorId().isPresent() ? "registry" : "custom");
        boolean local = gateway.transport() == Transport.STDIO;
        json.put("url", local ? null : gateway.url());
        json.put("transport", gateway.transport().wire());
        if (local) {
            json.put("command", gateway.settings().path("command").asText());
            json.put("args", gateway.settings().path("args"));
        }
        json.put("auth_type", gateway.authType().wire());
        json.put("description", gateway.description());
        ObjectNode credentials = gateway.settings().deepCopy();
        credentials.remove(List.of("auth_header_keys", "env_keys", "command", "args"));
        shownKeys(gateway, "auth_header_keys", credentials, "auth_headers");
        shownKeys(gateway, "env_keys", credentials, "env");
        if (gateway.authType() == AuthType.OAUTH) {
            credentials.put(
                    "client_secret_set",
                    gateway.secret().map(s -> s.has("client_secret")).orElse(false));
        }
        json.put("credentials", credentials);
        json.put("authorization", authorizations.authorization(gateway));
        json.put(
                "scope",
                Map.of(
                        "enabled",
                        gateway.scope().enabled(),
                        "global",
                        gateway.scope().global(),
                        "projects",
                        gateway.scope().projects()));
        json.put("clients", gateway.clients());
        json.put("created_at", gateway.createdAt() / 1000);
        json.put("updated_at", gateway.updatedAt() / 1000);
        return json;
    }
}
