package dev.arbor.connectors.gateways;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The registry of MCP servers: the curated catalog shipped in {@code catalog/mcp-connectors.json} (read-only, checked
 * at start) and the entries admins add, kept in the database. Listed by name.
 */
final class ConnectorRegistry {
    private static final String CATALOG = "/catalog/mcp-connectors.json";
    private static final Pattern ID_PATTERN = Pattern.compile("[a-z0-9][a-z0-9-]{0,63}");
    private static final BodyField.Text NAME = BodyField.text(REQUIRED, "name", 200);
    private static final BodyField.Text URL = BodyField.text(REQUIRED, "url", 2048);
    private static final BodyField.Text ID = BodyField.text(REQUIRED, "id", 64)
            .matching(ID_PATTERN, "must be 1 to 64 of a-z, 0-9 and '-', starting with a letter or digit");
    private static final BodyField.Choice AUTH_TYPE = BodyField.choice(
            REQUIRED,
            "auth_type",
            Stream.of(AuthType.values()).map(AuthType::wire).toList(),
            "must be none, headers or oauth");
    private static final BodyField.Choice TRANSPORT = BodyField.choice(
            OPTIONAL,
            "transport",
            Stream.of(Transport.values())
                    .map(Transport::wire)
                    .filter(t -> Transport.remote(t).isPresent())
                    .toList(),
            "must be streamable_http or sse");
    private static final BodyField.Text DESCRIPTION = BodyField.text(OPTIONAL, "description", 2000);
    private static final BodyField.Text PROVIDER = BodyField.text(OPTIONAL, "provider", 200);
    private static final BodyField.Text CATEGORY = BodyField.text(OPTIONAL, "category", 50);
    private static final BodyField.Text DOCUMENTATION = BodyField.text(OPTIONAL, "documentation_url", 2048);
    private static final BodyField.Text ICON = BodyField.text(OPTIONAL, "icon", 2048);
    private static final BodyField.Texts SCOPES = BodyField.texts(OPTIONAL, "oauth_scopes", 50, 200);
    private static final BodyField.Flag DCR = BodyField.flag(OPTIONAL, "oauth_supports_dcr");
    /** An admin's own entry ({@code POST /connectors/registry}); the URLs are checked as code after. */
    static final BodySpec NEW_CONNECTOR = BodySpec.of(
            NAME, URL, ID, AUTH_TYPE, TRANSPORT, DESCRIPTION, PROVIDER, CATEGORY, DOCUMENTATION, ICON, SCOPES, DCR);

    private static final Comparator<Connector> BY_NAME = Comparator.comparing(
                    (Connector c) -> c.name().toLowerCase(Locale.ROOT))
            .thenComparing(Connector::id);

    private final Map<String, Connector> catalog;
    private final Database database;
    private final OutboundPolicy policy;
    private final Clock clock;

    ConnectorRegistry(Database database, OutboundPolicy policy, Clock clock) {
        this.database = requireNonNull(database, "database");
        this.policy = requireNonNull(policy, "policy");
        this.clock = requireNonNull(clock, "clock");
        this.catalog = load();
    }

    private static Map<String, Connector> load() {
        JsonNode json;
        try (InputStream in = requireNonNull(ConnectorRegistry.class.getResourceAsStream(CATALOG), CATALOG)) {
            json = Json.read(in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var connectors = new LinkedHashMap<String, Connector>();
        for (JsonNode entry : json.path("connectors")) {
            Connector connector = fromJson(entry, true);
            if (!ID_PATTERN.matcher(connector.id()).matches() || connectors.put(connector.id(), connector) != null) {
                throw new IllegalStateException("connector '" + connector.id() + "' of the catalog is invalid");
            }
        }
        return Map.copyOf(connectors);
    }

    /** Every connector whose name (or provider) holds {@code query}, by name. */
    List<Connector> list(Optional<String> query) {
        var all = new ArrayList<>(catalog.values());
        all.addAll(added());
        String needle = query.map(q -> q.strip().toLowerCase(Locale.ROOT)).orElse("");
        return all.stream()
                .filter(c -> needle.isEmpty()
                        || c.name().toLowerCase(Locale.ROOT).contains(needle)
                        || c.provider().toLowerCase(Locale.ROOT).contains(needle))
                .sorted(BY_NAME)
                .toList();
    }

    Optional<Connector> find(String id) {
        return Optional.ofNullable(catalog.get(id))
                .or(() -> database.read(
                                handle -> handle.createQuery("SELECT entry FROM connector_registry WHERE id = :id")
                                        .bind("id", id)
                                        .mapTo(String.class)
                                        .findOne())
                        .map(entry -> fromJson(Json.read(entry), false)));
    }

    Connector require(String id) {
        return find(id).orElseThrow(() -> ApiException.of(
                ErrorCode.CONNECTOR_NOT_FOUND, "connector_id", "There is no connector '" + id + "' in the registry."));
    }

    /** Adds an admin's own entry, checked as the catalog's are. */
    Connector add(ObjectNode body) {
        BodyReader reader = NEW_CONNECTOR.reader(body);
        Optional<String> name = NAME.read(reader);
        Optional<String> url = URL.read(reader);
        Optional<String> id = ID.read(reader);
        Optional<String> auth = AUTH_TYPE.read(reader);
        Optional<String> transport = TRANSPORT.read(reader);
        Optional<String> description = DESCRIPTION.read(reader);
        Optional<String> provider = PROVIDER.read(reader);
        Optional<String> category = CATEGORY.read(reader);
        Optional<String> documentation = DOCUMENTATION.read(reader);
        Optional<String> icon = ICON.read(reader);
        Optional<List<String>> scopes = SCOPES.read(reader);
        Optional<Boolean> dcr = DCR.read(reader);
        // a gateway made from the entry connects to its url: one the outbound policy refuses never could, so it is
        // refused now as /connectors/custom refuses it; a name that does not resolve yet is judged at each connection
        url.ifPresent(u -> {
            checkHttp(u, "url", reader);
            if (reader.problems().list().stream().noneMatch(p -> "url".equals(p.param()))) {
                try {
                    policy.checkUnlessUnresolved(URI.create(u));
                } catch (OutboundRefusedException e) {
                    reader.reject("url", ErrorCode.INVALID_FIELD, "cannot be used: " + e.getMessage());
                }
            }
        });
        documentation.ifPresent(u -> checkHttp(u, "documentation_url", reader));
        icon.ifPresent(u -> checkHttp(u, "icon", reader));
        boolean oauth = auth.orElse("").equals("oauth");
        if (!oauth && (scopes.isPresent() || dcr.isPresent())) {
            reader.reject(
                    scopes.isPresent() ? "oauth_scopes" : "oauth_supports_dcr",
                    ErrorCode.INVALID_FIELD,
                    "is for connectors with auth_type oauth only");
        }
        reader.finish();
        if (find(id.get()).isPresent()) {
            throw ApiException.of(
                    ErrorCode.CONNECTOR_EXISTS, "id", "The registry has a connector '" + id.get() + "' already.");
        }
        var connector = new Connector(
                id.get(),
                name.get(),
                provider.orElse(name.get()),
                category.orElse("custom"),
                description.orElse(""),
                url.get(),
                transport.flatMap(Transport::remote).orElse(Transport.detect(url.get())),
                AuthType.of(auth.get()).orElseThrow(),
                documentation,
                icon,
                oauth
                        ? Optional.of(new Connector.OAuthHints(scopes.orElse(List.of()), dcr.orElse(false)))
                        : Optional.empty(),
                false);
        database.update(handle -> handle.createUpdate("INSERT INTO connector_registry (id, name, entry, created_at) "
                        + "VALUES (:id, :name, :entry, :now)")
                .bind("id", connector.id())
                .bind("name", connector.name())
                .bind("entry", Json.writeString(toEntry(connector)))
                .bind("now", clock.millis())
                .execute());
        return connector;
    }

    /** Removes an admin's entry; the shipped catalog's cannot go. */
    void remove(String id) {
        Connector connector = require(id);
        if (connector.builtIn()) {
            throw ApiException.of(
                    ErrorCode.CONNECTOR_BUILT_IN,
                    "connector_id",
                    "Connector '" + id + "' is part "
                            + "of the shipped catalog; only entries added here can be removed.");
        }
        database.update(handle -> handle.createUpdate("DELETE FROM connector_registry WHERE id = :id")
                .bind("id", id)
                .execute());
    }

    private List<Connector> added() {
        return database
                .read(handle -> handle.createQuery("SELECT entry FROM connector_registry")
                        .mapTo(String.class)
                        .list())
                .stream()
                .map(entry -> fromJson(Json.read(entry), false))
                .toList();
    }

    private static void checkHttp(String url, String param, BodyReader reader) {
        try {
            URI uri = URI.create(url);
            if (uri.getHost() == null
                    || !Set.of("http", "https")
                            .contains(String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT))) {
                reader.reject(param, ErrorCode.INVALID_FIELD, "must be an http(s) URL with a host");
            }
        } catch (IllegalArgumentException e) {
            reader.reject(param, ErrorCode.INVALID_FIELD, "must be an http(s) URL with a host");
        }
    }

    private static Connector fromJson(JsonNode entry, boolean builtIn) {
        JsonNode oauth = entry.path("oauth");
        var scopes = new ArrayList<String>();
        oauth.path("scopes").forEach(s -> scopes.add(s.asText()));
        return new Connector(
                entry.path("id").asText(),
                entry.path("name").asText(),
                entry.path("provider").asText(),
                entry.path("category").asText(),
                entry.path("description").asText(),
                entry.path("url").asText(),
                Transport.of(entry.path("transport").asText()).orElseThrow(),
                AuthType.of(entry.path("auth_type").asText()).orElseThrow(),
                Optional.ofNullable(entry.path("documentation_url").textValue()),
                Optional.ofNullable(entry.path("icon").textValue()),
                oauth.isObject()
                        ? Optional.of(new Connector.OAuthHints(
                                scopes, oauth.path("supports_dcr").asBoolean()))
                        : Optional.empty(),
                builtIn);
    }

    private static ObjectNode toEntry(Connector connector) {
        ObjectNode entry = Json.object()
                .put("id", connector.id())
                .put("name", connector.name())
                .put("provider", connector.provider())
                .put("category", connector.category())
                .put("description", connector.description())
                .put("url", connector.url())
                .put("transport", connector.transport().wire())
                .put("auth_type", connector.authType().wire());
        connector.documentationUrl().ifPresent(d -> entry.put("documentation_url", d));
        connector.icon().ifPresent(i -> entry.put("icon", i));
        connector.oauth().ifPresent(o -> {
            ObjectNode hints = entry.putObject("oauth").put("supports_dcr", o.supportsDcr());
            o.scopes().forEach(hints.putArray("scopes")::add);
        });
        return entry;
    }
}
