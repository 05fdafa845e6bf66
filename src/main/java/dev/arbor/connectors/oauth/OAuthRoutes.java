package dev.arbor.connectors.oauth;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
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
    private static final BodyField.Value RETURN_URL = BodyField.value(REQUIRED, "return_url", Schema.formatted("uri"));
    /** Its {@code return_url} is checked against the hosts allowed to receive the browser. */
    private static final BodySpec INITIATE = BodySpec.closed("the start of an authorization", RETURN_URL);

    private static final BodyField.Value STATE = BodyField.value(REQUIRED, "state", TEXT);
    private static final BodyField.Value CODE = BodyField.value(OPTIONAL, "code", TEXT);
    private static final BodyField.Value ERROR = BodyField.value(OPTIONAL, "error", TEXT);
    private static final BodyField.Value ERROR_DESCRIPTION =
            BodyField.value(OPTIONAL, "error_description", Schema.string());
    private static final BodyField.Value ISS = BodyField.value(OPTIONAL, "iss", Schema.string());
    /** What the authorization server sent the browser back with: {@code state}, and {@code code} or {@code error}. */
    private static final BodySpec CALLBACK = BodySpec.closed(
            "an authorization's callback",
            STATE,
            CODE,
            ERROR,
            ERROR_DESCRIPTION,
            BodyField.value(OPTIONAL, "error_uri", Schema.string()),
            ISS,
            BodyField.value(OPTIONAL, "scope", Schema.string()),
            BodyField.value(OPTIONAL, "session_state", Schema.string()));

    private final Gateways gateways;
    private final GatewayOAuth oauth;
    private final ToolRefetch tools;
    private final ReturnUrls returnUrls;
    private final Clock clock;

    /** @param returnHosts the hosts an authorization may send the browser back to */
    public OAuthRoutes(
            Gateways gateways, GatewayOAuth oauth, ToolRefetch tools, List<String> returnHosts, Clock clock) {
        this.gateways = requireNonNull(gateways, "gateways");
        this.oauth = requireNonNull(oauth, "oauth");
        this.tools = requireNonNull(tools, "tools");
        this.returnUrls = new ReturnUrls(returnHosts);
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
        BodyReader reader = INITIATE.reader(body);
        Optional<JsonNode> sent = RETURN_URL.read(reader);
        String returnUrl = returnUrls.check(sent, reader.problems());
        reader.finish();
        if (!gateway.scope().enabled()) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_DISABLED,
                    "gateway_id",
                    "Gateway " + gateway.id() + " is " + "disabled; enable it to authorize it.");
        }
        GatewayOAuth.Initiation started = oauth.initiate(gateway, principal, returnUrl);
        Responses.ok(
                ctx,
                new Authorization(
                        gateway.id(),
                        started.authorizationUrl(),
                        started.state(),
                        (started.expiresAt() - clock.millis()) / 1000,
                        started.expiresAt() / 1000,
                        returnUrl));
    }

    /** A started authorization: where to send the browser, and until when its state is good. */
    @JsonPropertyOrder({"object", "gateway_id", "authorization_url", "state", "expires_in", "expires_at", "return_url"})
    private record Authorization(
            @JsonProperty("gateway_id") String gatewayId,
            @JsonProperty("authorization_url") String authorizationUrl,
            String state,
            @JsonProperty("expires_in") long expiresIn,
            @JsonProperty("expires_at") long expiresAt,
            @JsonProperty("return_url") String returnUrl) {
        @JsonProperty("object")
        String object() {
            return "connector.oauth.authorization";
        }
    }

    private void callback(Context ctx) {
        Principal principal = Access.principal(ctx);
        ObjectNode body = Requests.jsonObject(ctx);
        BodyReader reader = CALLBACK.reader(body);
        Problems problems = reader.problems();
        Optional<String> state = text(STATE, reader);
        Optional<String> code = text(CODE, reader);
        Optional<String> error = text(ERROR, reader);
        Optional<JsonNode> description = ERROR_DESCRIPTION.read(reader);
        Optional<JsonNode> issuer = ISS.read(reader);
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
                + description
                        .filter(JsonNode::isTextual)
                        .map(d -> " (" + d.textValue() + ")")
                        .orElse(""));
        oauth.finish(
                gateway,
                state.get(),
                pending,
                principal,
                code,
                issuer.filter(JsonNode::isTextual).map(JsonNode::textValue),
                denial);
        Object fetched;
        try {
            fetched = tools.refetch(gateway, Identity.of(principal));
        } catch (ApiException e) {
            // authorized all the same; the tools can be fetched again later
            fetched = new OAuthStatus.ToolsFailure(new OAuthStatus.ToolsError(
                    e.code().code(), e.problems().getFirst().message()));
        }
        Responses.ok(ctx, new OAuthStatus.Finished(oauth.status(gateway, principal), fetched));
    }

    private void status(Context ctx) {
        Principal principal = Access.principal(ctx);
        Responses.ok(ctx, oauth.status(usable(ctx.pathParam("gateway_id"), principal), principal));
    }

    private void disconnect(Context ctx) {
        Principal principal = Access.principal(ctx);
        Gateway gateway = usable(ctx.pathParam("gateway_id"), principal);
        boolean had = oauth.disconnect(gateway, principal);
        Responses.ok(ctx, new OAuthStatus.Disconnected(oauth.status(gateway, principal), had));
    }

    private Gateway usable(String gatewayId, Principal principal) {
        return gateways.usable(gatewayId, principal);
    }

    /** A field that, when sent, is a non-empty string. */
    private static Optional<String> text(BodyField.Value field, BodyReader reader) {
        Optional<JsonNode> sent = field.read(reader);
        if (sent.isEmpty()) {
            return Optional.empty();
        }
        JsonNode value = sent.get();
        if (!value.isTextual()
                || value.textValue().isEmpty()
                || value.textValue().length() > MAX_TEXT) {
            reader.reject(field.name(), ErrorCode.INVALID_FIELD, "must be a non-empty string");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }
}
