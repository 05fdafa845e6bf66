package dev.arbor.connectors.oauth;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * OAuth of gateways over HTTP: start an authorization (the browser goes to the returned address, and the
 * authorization server sends it back to {@code return_url} with a code and the state), finish it (the page at
 * {@code return_url} posts the code and state back; the tools are fetched at once), see its status, or disconnect.
 * Admins may authorize any gateway; a member may authorize an enabled gateway shared with one of its projects.
 */
public final class OAuthRoutes {
    private static final int MAX_TEXT = 4096;
    private static final Schema TEXT = new Schema.Str(1, MAX_TEXT, "", "");
    /** Its {@code return_url} is checked against the hosts allowed to receive the browser. */
    private static final BodySpec INITIATE = BodySpec.closed(
            "the start of an authorization", BodyField.value(REQUIRED, "return_url", Schema.formatted("uri")));
    /** What the authorization server sent the browser back with: {@code state}, and {@code code} or {@code error}. */
    private static final BodySpec CALLBACK = BodySpec.closed(
            "an authorization's callback",
            BodyField.value(REQUIRED, "state", TEXT),
            BodyField.value(OPTIONAL, "code", TEXT),
            BodyField.value(OPTIONAL, "error", TEXT),
            BodyField.value(OPTIONAL, "error_description", Schema.string()),
            BodyField.value(OPTIONAL, "error_uri", Schema.string()),
            BodyField.value(OPTIONAL, "iss", Schema.string()),
            BodyField.value(OPTIONAL, "scope", Schema.string()),
            BodyField.value(OPTIONAL, "session_state", Schema.string()));

    private final Gateways gateways;
    private final GatewayOAuth oauth;
    private final ToolRefetch tools;
    private final List<String> returnHosts;
    private final Clock clock;

    /** @param returnHosts the hosts an authorization may send the browser back to */
    public OAuthRoutes(
            Gateways gateways, GatewayOAuth oauth, ToolRefetch tools, List<String> returnHosts, Clock clock) {
        this.gateways = requireNonNull(gateways, "gateways");
        this.oauth = requireNonNull(oauth, "oauth");
        this.tools = requireNonNull(tools, "tools");
        this.returnHosts =
                returnHosts.stream().map(h -> h.toLowerCase(Locale.ROOT)).toList();
        this.clock = requireNonNull(clock, "clock");
    }

    public void addTo(Routes routes) {
        routes.group("connectors")
                .post(
                        "/connectors/{gateway_id}/oauth/initiate",
                        "Start authorizing a gateway: the address to send "
                                + "the browser to, coming back to return_url",
                        this::initiate)
                .body(INITIATE.schema())
                .ok(OAuthShapes.AUTHORIZATION)
                .post(
                        "/connectors/oauth/callback",
                        "Finish an authorization with the code and state the browser "
                                + "came back with; the tools are fetched at once",
                        this::callback)
                .body(CALLBACK.schema())
                .ok(OAuthShapes.ANY_OBJECT)
                .get(
                        "/connectors/{gateway_id}/oauth/status",
                        "A gateway's authorization: configured, authorized, " + "expiry, scopes",
                        this::status)
                .ok(OAuthShapes.OAUTH_STATUS)
                .delete("/connectors/{gateway_id}/oauth", "Forget a gateway's tokens", this::disconnect)
                .ok(OAuthShapes.ANY_OBJECT);
    }

    private void initiate(Context ctx) {
        Principal principal = Access.principal(ctx);
        Gateway gateway = usable(ctx.pathParam("gateway_id"), principal);
        ObjectNode body =
                Requests.body(ctx).length == 0 ? dev.arbor.platform.json.Json.object() : Requests.jsonObject(ctx);
        Problems problems = INITIATE.reader(body).problems();
        String returnUrl = returnUrl(body.path("return_url"), problems);
        problems.throwIfAny();
        if (!gateway.scope().enabled()) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_DISABLED,
                    "gateway_id",
                    "Gateway " + gateway.id() + " is " + "disabled; enable it to authorize it.");
        }
        GatewayOAuth.Initiation started = oauth.initiate(gateway, principal, returnUrl);
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "connector.oauth.authorization");
        json.put("gateway_id", gateway.id());
        json.put("authorization_url", started.authorizationUrl());
        json.put("state", started.state());
        json.put("expires_in", (started.expiresAt() - clock.millis()) / 1000);
        json.put("expires_at", started.expiresAt() / 1000);
        json.put("return_url", returnUrl);
        Responses.ok(ctx, json);
    }

    private void callback(Context ctx) {
        Principal principal = Access.principal(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        Problems problems = CALLBACK.reader(body).problems();
        Optional<String> state = text(body, "state", problems);
        Optional<String> code = text(body, "code", problems);
        Optional<String> error = text(body, "error", problems);
        if (state.isEmpty() && problems.isEmpty()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "state",
                    "`state` is required: the state the browser came back " + "with.");
        }
        if (code.isEmpty() && error.isEmpty() && problems.isEmpty()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "code",
                    "`code` is required: the authorization code the browser "
                            + "came back with (or `error` when the authorization was refused).");
        }
        problems.throwIfAny();
        OAuthStore.State pending = oauth.checkState(state.get(), principal);
        Gateway gateway = gateways.find(pending.gatewayId())
                .orElseThrow(() ->
                        ApiException.of(ErrorCode.INVALID_OAUTH_STATE, "state", "The gateway of this state is gone."));
        Optional<String> denial = error.map(e -> e
                + Optional.of(body.path("error_description"))
                        .filter(JsonNode::isTextual)
                        .map(d -> " (" + d.textValue() + ")")
                        .orElse(""));
        oauth.finish(
                gateway,
                state.get(),
                pending,
                principal,
                code,
                body.path("iss").isTextual() ? Optional.of(body.path("iss").textValue()) : Optional.empty(),
                denial);
        Map<String, Object> json = oauth.status(gateway);
        try {
            json.put("tools", tools.refetch(gateway));
        } catch (ApiException e) {
            // authorized all the same; the tools can be fetched again later
            json.put(
                    "tools",
                    Map.of(
                            "error",
                            Map.of(
                                    "code",
                                    e.code().code(),
                                    "message",
                                    e.problems().getFirst().message())));
        }
        Responses.ok(ctx, json);
    }

    private void status(Context ctx) {
        Principal principal = Access.principal(ctx);
        Responses.ok(ctx, oauth.status(usable(ctx.pathParam("gateway_id"), principal)));
    }

    private void disconnect(Context ctx) {
        Principal principal = Access.principal(ctx);
        Gateway gateway = usable(ctx.pathParam("gateway_id"), principal);
        boolean had = oauth.disconnect(gateway);
        Map<String, Object> json = oauth.status(gateway);
        json.put("disconnected", had);
        Responses.ok(ctx, json);
    }

    private Gateway usable(String gatewayId, Principal principal) {
        return gateways.usable(gatewayId, principal);
    }

    /**
     * Where the authorization server sends the browser back (the OAuth redirect URI): an absolute http(s) URL without
     * a fragment on a host of {@code ARBOR_OAUTH_RETURN_HOSTS} (exactly, any port), https unless on this machine.
     */
    private String returnUrl(JsonNode value, Problems problems) {
        if (value.isMissingNode() || value.isNull()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "return_url",
                    "`return_url` is required: the page the "
                            + "authorization server sends the browser back to, with the code and state to post to "
                            + "/connectors/oauth/callback.");
            return "";
        }
        String text = value.isTextual() ? value.textValue() : "";
        String problem = null;
        try {
            URI uri = new URI(text);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
            boolean local = host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]");
            if (!scheme.equals("https") && !(scheme.equals("http") && local)) {
                problem = "must be an https URL (http only on localhost)";
            } else if (host.isEmpty() || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
                problem = "must be an absolute URL with a host, without user info or fragment";
            } else if (!returnHosts.contains(host)) {
                problem = "names the host '" + host + "', which ARBOR_OAUTH_RETURN_HOSTS does not list (it lists "
                        + (returnHosts.isEmpty() ? "none" : String.join(", ", returnHosts)) + ")";
            }
        } catch (URISyntaxException e) {
            problem = "is not a URL";
        }
        if (problem != null || text.length() > 2048) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "return_url",
                    "`return_url` " + (problem == null ? "is too long" : problem) + ".");
        }
        return text;
    }

    private static Optional<String> text(ObjectNode body, String field, Problems problems) {
        JsonNode value = body.path(field);
        if (value.isMissingNode() || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isTextual()
                || value.textValue().isEmpty()
                || value.textValue().length() > MAX_TEXT) {
            problems.add(ErrorCode.INVALID_FIELD, field, "`" + field + "` must be a non-empty string.");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }
}
