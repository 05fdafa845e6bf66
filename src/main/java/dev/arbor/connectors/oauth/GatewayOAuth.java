package dev.arbor.connectors.oauth;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.AuthType;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.GatewayAuthorization;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.oauth.OAuthClient.Client;
import dev.arbor.connectors.oauth.OAuthClient.OAuthException;
import dev.arbor.connectors.oauth.OAuthClient.Server;
import dev.arbor.connectors.oauth.OAuthClient.Tokens;
import dev.arbor.connectors.oauth.OAuthStore.Connection;
import dev.arbor.connectors.oauth.OAuthStore.Grant;
import dev.arbor.connectors.oauth.OAuthStore.Holder;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.secrets.SecretBox;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * OAuth of gateways: one shared connection per gateway, authorized once by an admin or a member whose project the
 * gateway serves, used by every agent; or, on a gateway that authorizes per user ({@code credentials.authorization:
 * per_user}), each caller {@link Identity}'s own tokens, got by that identity and used only for its calls. Authorization is started (initiate: discovery, a client, PKCE, a state bound
 * to the principal), finished (callback: the state used up, the code exchanged, the tokens sealed), and its tokens
 * refreshed before they expire, on use and by a periodic sweep, one server at a time.
 */
public final class GatewayOAuth implements GatewayAuthorization {
    private static final Logger LOG = LoggerFactory.getLogger(GatewayOAuth.class);
    private static final Duration STATE_LIFETIME = Duration.ofMinutes(10);
    /** A token this close to expiry is refreshed before it is used. */
    private static final Duration REFRESH_ON_USE = Duration.ofSeconds(60);
    /** The sweep refreshes tokens this close to expiry, so that calls seldom wait for a refresh. */
    private static final Duration REFRESH_AHEAD = Duration.ofMinutes(5);

    private static final Duration LEASE = Duration.ofSeconds(30);

    /** The values of {@code status}. */
    enum Status {
        NOT_REQUIRED,
        UNAUTHORIZED,
        PENDING,
        AUTHORIZED,
        EXPIRED,
        FAILED;

        String wire() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** An authorization started: where to send the browser. */
    record Initiation(String authorizationUrl, String state, long expiresAt) {
        @Override
        public String toString() {
            return "Initiation[expires " + expiresAt + "]";
        }
    }

    private record Cached(String accessToken, OptionalLong expiresAt) {}

    private final OAuthStore store;
    private final OAuthClient client;
    private final Clock clock;
    private final Map<String, Cached> tokens = new ConcurrentHashMap<>();
    private final Map<String, Object> refreshLocks = new ConcurrentHashMap<>();

    /** @param timeout how long an authorization server may take to answer */
    public GatewayOAuth(Database database, SecretBox secrets, OutboundClient outbound, Duration timeout, Clock clock) {
        this.store = new OAuthStore(database, secrets);
        this.client = new OAuthClient(outbound, timeout);
        this.clock = requireNonNull(clock, "clock");
    }

    /**
     * Starts an authorization: finds the authorization server, the client (the gateway's own, or one registered now
     * for this redirect URI), and records a state bound to the principal.
     */
    Initiation initiate(Gateway gateway, Principal principal, String redirectUri) {
        requireOAuth(gateway);
        Server server = translated(gateway, () -> client.discover(gateway));
        Optional<Connection> connection = store.find(gateway.id());
        Optional<Client> registered = Optional.empty();
        List<String> redirects = List.of();
        Client oauthClient;
        Optional<Client> given = givenClient(gateway);
        if (given.isPresent()) {
            oauthClient = given.get();
        } else {
            var known = connection.filter(c -> c.registered().isPresent()
                    && c.server().map(s -> s.issuer().equals(server.issuer())).orElse(false));
            var uris = new ArrayList<String>(
                    known.map(Connection::registeredRedirects).orElse(List.of()));
            if (known.isPresent() && uris.contains(redirectUri)) {
                oauthClient = known.get().registered().get();
            } else if (server.registrationEndpoint().isPresent()) {
                uris.add(redirectUri);
                oauthClient = translated(gateway, () -> client.register(server, uris));
            } else {
                throw ApiException.of(
                        ErrorCode.OAUTH_CLIENT_REQUIRED,
                        "gateway_id",
                        "The authorization server "
                                + server.issuer()
                                + " does not let clients register themselves: give the gateway an OAuth "
                                + "client (credentials.client_id, and client_secret if it has one).");
            }
            registered = Optional.of(oauthClient);
            redirects = uris;
        }
        List<String> scopes = new ArrayList<>();
        gateway.settings().path("scopes").forEach(scope -> scopes.add(scope.asText()));
        if (scopes.isEmpty()) {
            scopes.addAll(server.suggestedScopes());
        }
        String state = OAuthClient.randomToken();
        String verifier = OAuthClient.randomToken();
        long now = clock.millis();
        long expiresAt = now + STATE_LIFETIME.toMillis();
        store.start(
                state,
                new OAuthStore.State(
                        gateway.id(),
                        principal.tokenId(),
                        redirectUri,
                        verifier,
                        scopes,
                        now,
                        expiresAt,
                        OptionalLong.empty()),
                server,
                registered,
                redirects,
                now);
        return new Initiation(
                OAuthClient.authorizationUrl(server, oauthClient, redirectUri, state, verifier, scopes),
                state,
                expiresAt);
    }

    /**
     * The gateway of a state that this principal started, is unused and unexpired; anything else is
     * {@code invalid_oauth_state} and changes nothing.
     */
    OAuthStore.State checkState(String state, Principal principal) {
        OAuthStore.State pending = store.state(state)
                .orElseThrow(() -> invalidState("This state was not issued " + "here (or is long gone)."));
        if (!pending.principal().equals(principal.tokenId())) {
            throw invalidState("This state was issued to someone else: the authorization must be finished by the "
                    + "token that started it.");
        }
        if (pending.usedAt().isPresent()) {
            throw invalidState("This state was used already: each authorization finishes once.");
        }
        if (pending.expiresAt() <= clock.millis()) {
            throw invalidState("This state expired: an authorization must be finished within "
                    + STATE_LIFETIME.toMinutes() + " minutes of starting it.");
        }
        return pending;
    }

    /**
     * Finishes an authorization the principal started: uses the state up (once), then exchanges the code. An
     * {@code iss} that names another authorization server (RFC 9207: a mix-up) changes nothing; the authorization
     * server's refusal is recorded (the status says {@code failed}) and is 400 {@code oauth_rejected}.
     */
    void finish(
            Gateway gateway,
            String state,
            OAuthStore.State pending,
            Principal principal,
            Optional<String> code,
            Optional<String> issuer,
            Optional<String> denial) {
        Connection connection = store.find(gateway.id()).orElseThrow();
        Server server = connection.server().orElseThrow();
        if (issuer.isPresent() && !trimmed(issuer.get()).equals(trimmed(server.issuer()))) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "iss",
                    "`iss` is " + issuer.get() + ", but this " + "authorization was started with " + server.issuer()
                            + ".");
        }
        long now = clock.millis();
        if (!store.use(state, principal.tokenId(), now)) {
            throw invalidState("This state was used already: each authorization finishes once.");
        }
        Holder holder = holder(gateway, Identity.of(principal));
        if (denial.isPresent()) {
            store.fail(holder, "oauth_rejected", denial.get(), false, now);
            throw ApiException.of(
                    ErrorCode.OAUTH_REJECTED, "error", "The authorization was not granted: " + denial.get());
        }
        Client oauthClient = clientOf(gateway, connection);
        Tokens granted;
        try {
            granted =
                    client.exchange(server, oauthClient, code.orElseThrow(), pending.verifier(), pending.redirectUri());
        } catch (OAuthException e) {
            store.fail(
                    holder,
                    e.refused() ? "oauth_rejected" : "upstream_unavailable",
                    e.getMessage(),
                    false,
                    clock.millis());
            throw translate(e, "code");
        }
        long at = clock.millis();
        store.grant(
                holder,
                grant(granted, Optional.empty(), pending.scopes(), at, principal.tokenId(), OptionalLong.empty()),
                at);
        tokens.remove(holder.key());
    }

    /**
     * The access token to call the gateway's server with for {@code identity} (the gateway's shared one, or on a
     * per-user gateway the identity's own), refreshed first when it is about to expire; 409 {@code oauth_required}
     * when there is none that works.
     */
    public String accessToken(Gateway gateway, Identity identity) {
        Holder holder = holder(gateway, identity);
        Cached cached = tokens.get(holder.key());
        if (cached != null && fresh(cached.expiresAt(), REFRESH_ON_USE)) {
            return cached.accessToken();
        }
        Grant grant = store.find(holder)
                .flatMap(Connection::grant)
                .orElseThrow(() -> required(gateway, holder, "is not authorized"));
        if (fresh(grant.expiresAt(), REFRESH_ON_USE)) {
            tokens.put(holder.key(), new Cached(grant.accessToken(), grant.expiresAt()));
            return grant.accessToken();
        }
        return refresh(gateway, holder, grant.accessToken(), false);
    }

    /** The server refused this token of {@code identity}: a newer one if another refresh made one, else a refresh now. */
    public void rejected(Gateway gateway, Identity identity, String token) {
        Holder holder = holder(gateway, identity);
        tokens.remove(holder.key());
        refresh(gateway, holder, token, true);
    }

    /**
     * Deletes the tokens an identity got for itself on per-user gateways: its API token was revoked or its key
     * deleted, so nothing may call on its behalf any more. How many gateways it had authorized.
     */
    public int forgetIdentity(String identity) {
        tokens.keySet().removeIf(key -> key.endsWith("/" + identity));
        return store.forgetIdentity(identity);
    }

    /** Whether the calls of this gateway's callers carry each caller's own token rather than one shared token. */
    private static Holder holder(Gateway gateway, Identity identity) {
        return gateway.authorizesPerUser() ? Holder.of(gateway.id(), identity.id()) : Holder.shared(gateway.id());
    }

    /**
     * Refreshes the token unless someone already replaced {@code stale}: one thread per gateway here, and one server
     * of those sharing the database (a lease), since a refresh token may work once only. A token without a refresh
     * token is used until it expires, unless the server {@code rejected} it.
     */
    private String refresh(Gateway gateway, Holder holder, String stale, boolean rejected) {
        synchronized (refreshLocks.computeIfAbsent(holder.key(), id -> new Object())) {
            for (int attempt = 0; attempt < 50; attempt++) {
                Connection connection =
                        store.find(holder).orElseThrow(() -> required(gateway, holder, "is not authorized"));
                Grant grant = connection.grant().orElseThrow(() -> required(gateway, holder, "is not authorized"));
                if (!grant.accessToken().equals(stale) && fresh(grant.expiresAt(), Duration.ZERO)) {
                    tokens.put(holder.key(), new Cached(grant.accessToken(), grant.expiresAt()));
                    return grant.accessToken();
                }
                if (grant.refreshToken().isEmpty()) {
                    if (!rejected && fresh(grant.expiresAt(), Duration.ZERO)) {
                        return grant.accessToken();
                    }
                    throw required(
                            gateway,
                            holder,
                            rejected
                                    ? "has a token its server refused and no refresh token"
                                    : "has an expired token and no refresh token");
                }
                long now = clock.millis();
                if (store.lease(holder, now, now + LEASE.toMillis())) {
                    // another server may have refreshed it and let the lease go since we read it: its refresh
                    // token may already be spent, so refresh only what is still there
                    if (store.find(holder)
                            .flatMap(Connection::grant)
                            .map(Grant::accessToken)
                            .equals(Optional.of(grant.accessToken()))) {
                        return refreshLeased(gateway, holder, connection, grant);
                    }
                    store.release(holder);
                    continue;
                }
                sleep(); // another server is refreshing it
            }
            throw ApiException.of(
                    ErrorCode.UPSTREAM_TIMEOUT,
                    "gateway_id",
                    "The token of gateway " + gateway.id()
                            + " is being refreshed by another server and was not ready in time.");
        }
    }

    private String refreshLeased(Gateway gateway, Holder holder, Connection connection, Grant grant) {
        try {
            Tokens refreshed = client.refresh(
                    connection.server().orElseThrow(),
                    clientOf(gateway, connection),
                    grant.refreshToken().orElseThrow());
            long at = clock.millis();
            // a server that does not rotate refresh tokens keeps the one it gave
            Grant next = grant(
                    refreshed,
                    grant.refreshToken(),
                    grant.scopes(),
                    grant.authorizedAt(),
                    grant.authorizedBy(),
                    OptionalLong.of(at));
            store.grant(holder, next, at);
            tokens.put(holder.key(), new Cached(next.accessToken(), next.expiresAt()));
            return next.accessToken();
        } catch (OAuthException e) {
            if (e.refused()) {
                store.fail(holder, "oauth_rejected", e.getMessage(), true, clock.millis());
                tokens.remove(holder.key());
                throw required(gateway, holder, "lost its authorization (" + e.getMessage() + ")");
            }
            store.release(holder);
            throw translate(e, "gateway_id");
        } catch (RuntimeException e) {
            store.release(holder);
            throw e;
        }
    }

    /** Refreshes every token about to expire; what fails is recorded and the status shows it. */
    public void refreshDue(Gateways gateways) {
        long now = clock.millis();
        // another server may have refreshed these: the next use reads the newest token instead of the old one
        tokens.values().removeIf(cached -> !fresh(cached.expiresAt(), REFRESH_AHEAD));
        for (Holder holder : store.expiring(now + REFRESH_AHEAD.toMillis())) {
            gateways.find(holder.gatewayId()).ifPresent(gateway -> {
                try {
                    Optional<Grant> current = store.find(holder).flatMap(Connection::grant);
                    if (current.isPresent() && !fresh(current.get().expiresAt(), REFRESH_AHEAD)) {
                        refresh(gateway, holder, current.get().accessToken(), false);
                    } // else another server refreshed it since the list was read
                } catch (RuntimeException e) {
                    LOG.warn("Refreshing the OAuth token of gateway {} failed: {}", holder.gatewayId(), e.getMessage());
                }
            });
        }
        store.sweep(now - Duration.ofDays(1).toMillis());
    }

    @Override
    public void credentialsChanged(Gateway gateway) {
        tokens.keySet().removeIf(key -> key.equals(gateway.id()) || key.startsWith(gateway.id() + "/"));
        store.forget(Holder.shared(gateway.id()), clock.millis());
        store.forgetUsers(gateway.id());
    }

    /**
     * Forgets the tokens the principal's calls use (the gateway's shared ones, or on a per-user gateway the
     * principal's own); agents lose its tools until someone authorizes it again.
     */
    boolean disconnect(Gateway gateway, Principal principal) {
        requireOAuth(gateway);
        Holder holder = holder(gateway, Identity.of(principal));
        tokens.remove(holder.key());
        return store.forget(holder, clock.millis());
    }

    /**
     * The status of a gateway's authorization, separating configured from authorized: on a per-user gateway the
     * principal's own, never another identity's.
     */
    OAuthStatus status(Gateway gateway, Principal principal) {
        boolean oauth = gateway.authType() == AuthType.OAUTH;
        Holder holder = holder(gateway, Identity.of(principal));
        Optional<Connection> connection = oauth ? store.find(holder) : Optional.empty();
        Optional<Grant> grant = connection.flatMap(Connection::grant);
        return new OAuthStatus(
                gateway.id(),
                statusOf(gateway, holder, connection).wire(),
                oauth,
                oauth ? (gateway.authorizesPerUser() ? "per_user" : "shared") : null,
                connection.flatMap(Connection::server).map(Server::issuer).orElse(null),
                !oauth
                        ? null
                        : givenClient(gateway).isPresent()
                                ? "configured"
                                : connection.flatMap(Connection::registered).isPresent() ? "registered" : null,
                grant.map(Grant::scopes).orElse(List.of()),
                grant.flatMap(g -> seconds(g.expiresAt())).orElse(null),
                grant.map(g -> g.refreshToken().isPresent()).orElse(false),
                grant.map(g -> g.authorizedAt() / 1000).orElse(null),
                grant.map(Grant::authorizedBy).orElse(null),
                grant.flatMap(g -> seconds(g.refreshedAt())).orElse(null),
                connection
                        .flatMap(Connection::failure)
                        .map(f -> new OAuthStatus.Failure(f.code(), f.message(), f.at() / 1000))
                        .orElse(null));
    }

    private static Optional<Long> seconds(OptionalLong millis) {
        return millis.isPresent() ? Optional.of(millis.getAsLong() / 1000) : Optional.empty();
    }

    /**
     * The status the gateways' list shows: the shared authorization's, or {@code per_user} for a gateway each caller
     * authorizes for itself (whose status is each caller's own, shown to it alone).
     */
    @Override
    public String authorization(Gateway gateway) {
        if (gateway.authorizesPerUser()) {
            return "per_user";
        }
        Holder shared = Holder.shared(gateway.id());
        return statusOf(gateway, shared, gateway.authType() == AuthType.OAUTH ? store.find(shared) : Optional.empty())
                .wire();
    }

    private Status statusOf(Gateway gateway, Holder holder, Optional<Connection> connection) {
        if (gateway.authType() != AuthType.OAUTH) {
            return Status.NOT_REQUIRED;
        }
        long now = clock.millis();
        Optional<Grant> grant = connection.flatMap(Connection::grant);
        if (grant.isPresent()) {
            OptionalLong expiresAt = grant.get().expiresAt();
            return expiresAt.isPresent() && expiresAt.getAsLong() <= now ? Status.EXPIRED : Status.AUTHORIZED;
        }
        long failedAt = connection
                .flatMap(Connection::failure)
                .map(OAuthStore.Failure::at)
                .orElse(0L);
        if (store.pending(holder, failedAt, now)) {
            return Status.PENDING;
        }
        return failedAt > 0 ? Status.FAILED : Status.UNAUTHORIZED;
    }

    private boolean fresh(OptionalLong expiresAt, Duration margin) {
        return expiresAt.isEmpty() || expiresAt.getAsLong() - margin.toMillis() > clock.millis();
    }

    private static Grant grant(
            Tokens tokens,
            Optional<String> previousRefresh,
            List<String> asked,
            long authorizedAt,
            String authorizedBy,
            OptionalLong refreshedAt) {
        long at = refreshedAt.isPresent() ? refreshedAt.getAsLong() : authorizedAt;
        List<String> scopes = tokens.scope()
                .map(s -> List.of(s.trim().split("\\s+")))
                .filter(s -> !s.getFirst().isEmpty())
                .orElse(asked);
        return new Grant(
                tokens.accessToken(),
                tokens.refreshToken().or(() -> previousRefresh),
                tokens.tokenType(),
                scopes,
                tokens.expiresIn().isPresent()
                        ? OptionalLong.of(at + tokens.expiresIn().getAsLong() * 1000)
                        : OptionalLong.empty(),
                authorizedAt,
                authorizedBy,
                refreshedAt);
    }

    private static String trimmed(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static Optional<Client> givenClient(Gateway gateway) {
        JsonNode id = gateway.settings().path("client_id");
        return id.isTextual()
                ? Optional.of(new Client(
                        id.textValue(),
                        gateway.secret()
                                .map(s -> s.path("client_secret"))
                                .filter(JsonNode::isTextual)
                                .map(JsonNode::textValue)))
                : Optional.empty();
    }

    private static Client clientOf(Gateway gateway, Connection connection) {
        return givenClient(gateway)
                .or(connection::registered)
                .orElseThrow(() -> required(gateway, "has no OAuth client"));
    }

    private static void requireOAuth(Gateway gateway) {
        if (gateway.authType() != AuthType.OAUTH) {
            throw ApiException.of(
                    ErrorCode.OAUTH_NOT_REQUIRED,
                    "gateway_id",
                    "Gateway " + gateway.id() + " uses " + "auth_type "
                            + gateway.authType().wire() + ", not oauth: there is nothing to authorize.");
        }
    }

    private static <T> T translated(Gateway gateway, java.util.function.Supplier<T> work) {
        try {
            return work.get();
        } catch (OAuthException e) {
            throw translate(e, "gateway_id");
        }
    }

    private static ApiException translate(OAuthException e, String param) {
        if (e.refused()) {
            return ApiException.of(ErrorCode.OAUTH_REJECTED, param, e.getMessage());
        }
        return ApiException.of(
                e.error().equals("timeout") ? ErrorCode.UPSTREAM_TIMEOUT : ErrorCode.UPSTREAM_UNAVAILABLE,
                "gateway_id",
                e.getMessage());
    }

    private static ApiException required(Gateway gateway, Holder holder, String what) {
        return ApiException.of(
                ErrorCode.OAUTH_REQUIRED,
                "gateway_id",
                "Gateway " + gateway.id() + " " + what + (holder.identity().isPresent() ? " for you" : "")
                        + ": authorize it with POST /connectors/" + gateway.id() + "/oauth/initiate.");
    }

    private static ApiException required(Gateway gateway, String what) {
        return required(gateway, Holder.shared(gateway.id()), what);
    }

    private static ApiException invalidState(String message) {
        return ApiException.of(ErrorCode.INVALID_OAUTH_STATE, "state", message);
    }

    private static void sleep() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a token refresh", e);
        }
    }
}
