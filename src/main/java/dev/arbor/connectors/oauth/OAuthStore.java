package dev.arbor.connectors.oauth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.connectors.oauth.OAuthClient.Client;
import dev.arbor.connectors.oauth.OAuthClient.Server;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.SecretBox;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The SQL of gateways' OAuth: authorizations under way (states, kept as hashes) and each gateway's one shared
 * connection (its authorization server, a registered client, the tokens). Tokens and secrets are sealed here, bound
 * to their gateway.
 */
final class OAuthStore {
    /** An authorization started and not yet finished. */
    record State(
            String gatewayId,
            String principal,
            String redirectUri,
            String verifier,
            List<String> scopes,
            long createdAt,
            long expiresAt,
            OptionalLong usedAt) {
        State {
            scopes = List.copyOf(scopes);
        }

        @Override
        public String toString() {
            return "State[" + gatewayId + ", " + principal + "]";
        }
    }

    /** Tokens granted to a gateway, and what is known of them. */
    record Grant(
            String accessToken,
            Optional<String> refreshToken,
            String tokenType,
            List<String> scopes,
            OptionalLong expiresAt,
            long authorizedAt,
            String authorizedBy,
            OptionalLong refreshedAt) {
        Grant {
            scopes = List.copyOf(scopes);
        }

        @Override
        public String toString() {
            return "Grant[" + tokenType + ", expires " + expiresAt + "]";
        }
    }

    /** The last thing that went wrong, until an authorization succeeds. */
    record Failure(String code, String message, long at) {}

    /** A gateway's shared OAuth connection. */
    record Connection(
            String gatewayId,
            Optional<Server> server,
            Optional<Client> registered,
            List<String> registeredRedirects,
            Optional<Grant> grant,
            Optional<Failure> failure) {
        Connection {
            registeredRedirects = List.copyOf(registeredRedirects);
        }
    }

    /**
     * Whose tokens a row holds: a gateway's one shared connection ({@code connector_oauth}), or one identity's own on a
     * gateway that authorizes per user ({@code connector_oauth_grants}). Both tables have the same token columns, so
     * that one piece of SQL serves either.
     */
    record Holder(String gatewayId, Optional<String> identity) {
        static Holder shared(String gatewayId) {
            return new Holder(gatewayId, Optional.empty());
        }

        static Holder of(String gatewayId, String identity) {
            return new Holder(gatewayId, Optional.of(identity));
        }

        /** Tells holders apart in memory (caches, locks). */
        String key() {
            return gatewayId + identity.map(id -> "/" + id).orElse("");
        }

        private String table() {
            return identity.isPresent() ? "connector_oauth_grants" : "connector_oauth";
        }

        private String where() {
            return identity.isPresent() ? "gateway_id = :gateway AND identity = :identity" : "gateway_id = :gateway";
        }

        private <T extends org.jdbi.v3.core.statement.SqlStatement<T>> T bind(T statement) {
            statement.bind("gateway", gatewayId);
            identity.ifPresent(id -> statement.bind("identity", id));
            return statement;
        }

        /** Tokens are sealed bound to their holder: one holder's sealed tokens never open as another's. */
        private String context() {
            return "gateway:" + gatewayId + ":oauth"
                    + identity.map(id -> ":" + id).orElse("");
        }
    }

    private final Database database;
    private final SecretBox secrets;

    OAuthStore(Database database, SecretBox secrets) {
        this.database = requireNonNull(database, "database");
        this.secrets = requireNonNull(secrets, "secrets");
    }

    static String hash(String state) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(state.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Records an authorization started: the server it goes to (and the client registered there, if any) on the
     * gateway's connection, the state as its hash.
     */
    void start(
            String state, State pending, Server server, Optional<Client> registered, List<String> redirects, long now) {
        database.update(handle -> {
            ensureRow(handle, pending.gatewayId(), now);
            handle.createUpdate("UPDATE connector_oauth SET server = :server, client_id = :client, "
                            + "client_secret = :secret, client_redirect_uris = :redirects, updated_at = :now "
                            + "WHERE gateway_id = :gateway")
                    .bind("server", Json.writeString(serverJson(server)))
                    .bind("client", registered.map(Client::id).orElse(null))
                    .bind(
                            "secret",
                            registered
                                    .flatMap(Client::secret)
                                    .map(s -> secrets.seal(s, context(pending.gatewayId())))
                                    .orElse(null))
                    .bind("redirects", registered.isPresent() ? Json.writeString(redirects) : null)
                    .bind("now", now)
                    .bind("gateway", pending.gatewayId())
                    .execute();
            ObjectNode secret = Json.object().put("verifier", pending.verifier());
            pending.scopes().forEach(secret.putArray("scopes")::add);
            String hash = hash(state);
            handle.createUpdate("INSERT INTO connector_oauth_states (state_hash, gateway_id, principal, redirect_uri, "
                            + "secret, created_at, expires_at) VALUES (:hash, :gateway, :principal, :redirect, "
                            + ":secret, :created, :expires)")
                    .bind("hash", hash)
                    .bind("gateway", pending.gatewayId())
                    .bind("principal", pending.principal())
                    .bind("redirect", pending.redirectUri())
                    .bind("secret", secrets.seal(Json.writeString(secret), stateContext(hash)))
                    .bind("created", pending.createdAt())
                    .bind("expires", pending.expiresAt())
                    .execute();
        });
    }

    /** A state as it was recorded, used or not. */
    Optional<State> state(String state) {
        String hash = hash(state);
        return database.read(handle -> handle.createQuery(
                        "SELECT * FROM connector_oauth_states " + "WHERE state_hash = :hash")
                .bind("hash", hash)
                .map((rs, ctx) -> {
                    JsonNode secret = Json.read(secrets.open(rs.getString("secret"), stateContext(hash)));
                    var scopes = new ArrayList<String>();
                    secret.path("scopes").forEach(s -> scopes.add(s.asText()));
                    return new State(
                            rs.getString("gateway_id"),
                            rs.getString("principal"),
                            rs.getString("redirect_uri"),
                            secret.path("verifier").asText(),
                            scopes,
                            rs.getLong("created_at"),
                            rs.getLong("expires_at"),
                            optionalLong(rs, "used_at"));
                })
                .findOne());
    }

    /** Uses a state up, once: false when it was used already, has expired or is another principal's. */
    boolean use(String state, String principal, long now) {
        return database.write(handle -> handle.createUpdate(
                                "UPDATE connector_oauth_states SET used_at = :now "
                                        + "WHERE state_hash = :hash AND used_at IS NULL AND expires_at > :now AND principal = :who")
                        .bind("now", now)
                        .bind("hash", hash(state))
                        .bind("who", principal)
                        .execute()
                == 1);
    }

    /**
     * Whether an authorization of the holder (the gateway's, or one its identity started) was started after
     * {@code since} and can still be finished.
     */
    boolean pending(Holder holder, long since, long now) {
        return database.read(handle -> holder.bind(handle.createQuery("SELECT count(*) FROM connector_oauth_states "
                                + "WHERE gateway_id = :gateway AND used_at IS NULL AND expires_at > :now "
                                + "AND created_at > :since"
                                + (holder.identity().isPresent() ? " AND principal = :identity" : "")))
                        .bind("now", now)
                        .bind("since", since)
                        .mapTo(Integer.class)
                        .one()
                > 0);
    }

    Optional<Connection> find(String gatewayId) {
        return database.read(handle -> handle.createQuery("SELECT * FROM connector_oauth WHERE gateway_id = :gateway")
                .bind("gateway", gatewayId)
                .map((rs, ctx) -> connection(rs))
                .findOne());
    }

    /**
     * The holder's connection: the gateway's shared one, or, for an identity, the gateway's authorization server and
     * client with that identity's own tokens and failure; empty when neither has anything yet.
     */
    Optional<Connection> find(Holder holder) {
        if (holder.identity().isEmpty()) {
            return find(holder.gatewayId());
        }
        Optional<Connection> gateway = find(holder.gatewayId());
        Optional<Connection> own = database.read(handle -> holder.bind(
                        handle.createQuery("SELECT * FROM connector_oauth_grants WHERE " + holder.where()))
                .map((rs, ctx) -> new Connection(
                        holder.gatewayId(),
                        Optional.empty(),
                        Optional.empty(),
                        List.of(),
                        grant(rs, holder),
                        failure(rs)))
                .findOne());
        if (gateway.isEmpty() && own.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new Connection(
                holder.gatewayId(),
                gateway.flatMap(Connection::server),
                gateway.flatMap(Connection::registered),
                gateway.map(Connection::registeredRedirects).orElse(List.of()),
                own.flatMap(Connection::grant),
                own.flatMap(Connection::failure)));
    }

    /** Stores tokens: a new authorization, or a refresh (which keeps who authorized and when). */
    void grant(Holder holder, Grant grant, long now) {
        ObjectNode tokens = Json.object().put("access_token", grant.accessToken());
        grant.refreshToken().ifPresent(token -> tokens.put("refresh_token", token));
        database.update(handle -> {
            ensureRow(handle, holder, now);
            holder.bind(handle.createUpdate("UPDATE " + holder.table()
                            + " SET tokens = :tokens, token_type = :type, scopes = :scopes, "
                            + "expires_at = :expires, authorized_at = :authorized, authorized_by = :by, "
                            + "refreshed_at = :refreshed, error_code = NULL, error_message = NULL, failed_at = NULL, "
                            + "refresh_lease = NULL, updated_at = :now WHERE " + holder.where()))
                    .bind("tokens", secrets.seal(Json.writeString(tokens), holder.context()))
                    .bind("type", grant.tokenType())
                    .bind("scopes", String.join(" ", grant.scopes()))
                    .bind(
                            "expires",
                            grant.expiresAt().isPresent() ? grant.expiresAt().getAsLong() : null)
                    .bind("authorized", grant.authorizedAt())
                    .bind("by", grant.authorizedBy())
                    .bind(
                            "refreshed",
                            grant.refreshedAt().isPresent()
                                    ? grant.refreshedAt().getAsLong()
                                    : null)
                    .bind("now", now)
                    .execute();
        });
    }

    /** Records what went wrong; {@code dropTokens} when the tokens can no longer be used (a refused refresh). */
    void fail(Holder holder, String code, String message, boolean dropTokens, long now) {
        database.update(handle -> {
            ensureRow(handle, holder, now);
            holder.bind(handle.createUpdate("UPDATE " + holder.table()
                            + " SET error_code = :code, error_message = :message, "
                            + "failed_at = :now, refresh_lease = NULL, updated_at = :now"
                            + (dropTokens ? ", tokens = NULL, expires_at = NULL" : "") + " WHERE " + holder.where()))
                    .bind("code", code)
                    .bind("message", message)
                    .bind("now", now)
                    .execute();
        });
    }

    /** Forgets the gateway's tokens and failures; the server and a registered client stay for the next time. */
    boolean forget(Holder holder, long now) {
        if (holder.identity().isPresent()) {
            return database.write(handle -> holder.bind(handle.createUpdate("DELETE FROM connector_oauth_grants WHERE "
                                    + holder.where() + " AND tokens IS NOT NULL"))
                            .execute()
                    == 1);
        }
        return database.write(handle -> handle.createUpdate("UPDATE connector_oauth SET tokens = NULL, "
                                + "token_type = NULL, scopes = NULL, expires_at = NULL, authorized_at = NULL, "
                                + "authorized_by = NULL, refreshed_at = NULL, error_code = NULL, error_message = NULL, "
                                + "failed_at = NULL, refresh_lease = NULL, updated_at = :now "
                                + "WHERE gateway_id = :gateway AND tokens IS NOT NULL")
                        .bind("now", now)
                        .bind("gateway", holder.gatewayId())
                        .execute()
                == 1);
    }

    /** Deletes every identity's own tokens of a gateway (its credentials changed); how many identities had some. */
    int forgetUsers(String gatewayId) {
        return database.write(
                handle -> handle.createUpdate("DELETE FROM connector_oauth_grants WHERE gateway_id = :gateway")
                        .bind("gateway", gatewayId)
                        .execute());
    }

    /** Deletes an identity's own tokens of every gateway (its token was revoked, its key deleted); how many. */
    int forgetIdentity(String identity) {
        return database.write(
                handle -> handle.createUpdate("DELETE FROM connector_oauth_grants WHERE identity = :identity")
                        .bind("identity", identity)
                        .execute());
    }

    /** Takes the right to refresh the gateway's token until {@code until}; false while another server has it. */
    boolean lease(Holder holder, long now, long until) {
        return database.write(handle -> holder.bind(handle.createUpdate("UPDATE " + holder.table()
                                + " SET refresh_lease = :until WHERE " + holder.where()
                                + " AND (refresh_lease IS NULL OR refresh_lease < :now)"))
                        .bind("until", until)
                        .bind("now", now)
                        .execute()
                == 1);
    }

    void release(Holder holder) {
        database.update(handle -> holder.bind(handle.createUpdate(
                        "UPDATE " + holder.table() + " SET refresh_lease = NULL WHERE " + holder.where()))
                .execute());
    }

    /** The holders whose tokens expire before {@code before} and can be refreshed, shared or an identity's own. */
    List<Holder> expiring(long before) {
        return database.read(handle -> handle
                .createQuery("SELECT gateway_id, NULL AS identity, tokens, expires_at FROM connector_oauth "
                        + "WHERE tokens IS NOT NULL AND expires_at IS NOT NULL AND expires_at < :before "
                        + "UNION ALL SELECT gateway_id, identity, tokens, expires_at FROM connector_oauth_grants "
                        + "WHERE tokens IS NOT NULL AND expires_at IS NOT NULL AND expires_at < :before "
                        + "ORDER BY expires_at")
                .bind("before", before)
                .map((rs, ctx) -> {
                    var holder = new Holder(rs.getString("gateway_id"), Optional.ofNullable(rs.getString("identity")));
                    return Json.read(secrets.open(rs.getString("tokens"), holder.context()))
                                    .has("refresh_token")
                            ? holder
                            : null;
                })
                .list()
                .stream()
                .filter(java.util.Objects::nonNull)
                .toList());
    }

    /** States finished or expired before {@code before} go: they only served to tell a reused state. */
    void sweep(long before) {
        database.update(handle -> handle.createUpdate("DELETE FROM connector_oauth_states WHERE expires_at < :before")
                .bind("before", before)
                .execute());
    }

    private static void ensureRow(org.jdbi.v3.core.Handle handle, Holder holder, long now) {
        if (holder.identity().isEmpty()) {
            ensureRow(handle, holder.gatewayId(), now);
            return;
        }
        holder.bind(handle.createUpdate("INSERT INTO connector_oauth_grants (gateway_id, identity, updated_at) "
                        + "SELECT :gateway, :identity, :now WHERE NOT EXISTS "
                        + "(SELECT 1 FROM connector_oauth_grants WHERE " + holder.where() + ")"))
                .bind("now", now)
                .execute();
    }

    private static void ensureRow(org.jdbi.v3.core.Handle handle, String gatewayId, long now) {
        handle.createUpdate("INSERT INTO connector_oauth (gateway_id, updated_at) SELECT :gateway, :now "
                        + "WHERE NOT EXISTS (SELECT 1 FROM connector_oauth WHERE gateway_id = :gateway)")
                .bind("gateway", gatewayId)
                .bind("now", now)
                .execute();
    }

    private Connection connection(ResultSet rs) throws SQLException {
        String gatewayId = rs.getString("gateway_id");
        Optional<Server> server =
                Optional.ofNullable(rs.getString("server")).map(Json::read).map(OAuthStore::server);
        Optional<Client> registered = Optional.ofNullable(rs.getString("client_id"))
                .map(id -> new Client(
                        id,
                        Optional.ofNullable(text(rs, "client_secret")).map(s -> secrets.open(s, context(gatewayId)))));
        var redirects = new ArrayList<String>();
        Optional.ofNullable(text(rs, "client_redirect_uris"))
                .map(Json::read)
                .ifPresent(list -> list.forEach(uri -> redirects.add(uri.asText())));
        return new Connection(
                gatewayId, server, registered, redirects, grant(rs, Holder.shared(gatewayId)), failure(rs));
    }

    /** The tokens of a row of either table, opened. */
    private Optional<Grant> grant(ResultSet rs, Holder holder) throws SQLException {
        String tokens = rs.getString("tokens");
        if (tokens == null) {
            return Optional.empty();
        }
        JsonNode opened = Json.read(secrets.open(tokens, holder.context()));
        String scopes = rs.getString("scopes");
        return Optional.of(new Grant(
                opened.path("access_token").asText(),
                Optional.ofNullable(opened.get("refresh_token")).map(JsonNode::asText),
                rs.getString("token_type"),
                scopes == null || scopes.isBlank() ? List.of() : List.of(scopes.split(" ")),
                optionalLong(rs, "expires_at"),
                rs.getLong("authorized_at"),
                rs.getString("authorized_by"),
                optionalLong(rs, "refreshed_at")));
    }

    private static Optional<Failure> failure(ResultSet rs) throws SQLException {
        return Optional.ofNullable(rs.getString("error_code"))
                .map(code -> new Failure(code, text(rs, "error_message"), longOf(rs, "failed_at")));
    }

    private static ObjectNode serverJson(Server server) {
        ObjectNode json = Json.object()
                .put("resource", server.resource())
                .put("issuer", server.issuer())
                .put("authorization_endpoint", server.authorizationEndpoint())
                .put("token_endpoint", server.tokenEndpoint());
        server.registrationEndpoint().ifPresent(endpoint -> json.put("registration_endpoint", endpoint));
        server.authMethods().stream().sorted().forEach(json.putArray("auth_methods")::add);
        return json;
    }

    private static Server server(JsonNode json) {
        var methods = new LinkedHashSet<String>();
        json.path("auth_methods").forEach(m -> methods.add(m.asText()));
        return new Server(
                json.path("resource").asText(),
                json.path("issuer").asText(),
                json.path("authorization_endpoint").asText(),
                json.path("token_endpoint").asText(),
                Optional.ofNullable(json.get("registration_endpoint")).map(JsonNode::asText),
                methods,
                List.of());
    }

    /** A column read in a row mapper, whose checked exception is not wanted in a lambda. */
    private static String text(ResultSet rs, String column) {
        try {
            return rs.getString(column);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static long longOf(ResultSet rs, String column) {
        try {
            return rs.getLong(column);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static OptionalLong optionalLong(ResultSet rs, String column) throws SQLException {
        long value = rs.getLong(column);
        return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(value);
    }

    private static String context(String gatewayId) {
        return "gateway:" + gatewayId + ":oauth";
    }

    private static String stateContext(String hash) {
        return "oauth-state:" + hash;
    }
}
