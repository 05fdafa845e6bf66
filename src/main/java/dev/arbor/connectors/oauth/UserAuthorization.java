package dev.arbor.connectors.oauth;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What an MCP client is told when its caller has not authorized a per-user gateway yet: the MCP "URL elicitation
 * required" error (JSON-RPC {@value #CODE}), whose URL is an authorization started for that caller at the gateway's
 * authorization server, coming back to the console's page that finishes it. The caller opens it, consents, and calls
 * again; nothing of another identity's authorization is said.
 */
public final class UserAuthorization {
    /** MCP's {@code URLElicitationRequiredError}. */
    public static final int CODE = -32042;

    /** Where the console finishes an authorization (its OAuth return page), under the server's public address. */
    static final String CONSOLE_RETURN = "/console/oauth/return";

    private final GatewayOAuth oauth;
    private final Supplier<String> publicUrl;

    public UserAuthorization(GatewayOAuth oauth, Supplier<String> publicUrl) {
        this.oauth = requireNonNull(oauth, "oauth");
        this.publicUrl = requireNonNull(publicUrl, "publicUrl");
    }

    /** The error's data: one URL elicitation, as the MCP specification (2025-11-25) words it. */
    public record Required(List<UrlElicitation> elicitations) {
        public Required {
            elicitations = List.copyOf(elicitations);
        }
    }

    public record UrlElicitation(String mode, String elicitationId, String url, String message) {}

    /**
     * When {@code failure} says that {@code principal} has no working authorization of a per-user gateway: the
     * elicitation of a new one; empty for any other failure (which stays a tool error).
     */
    public Optional<Required> required(Gateway gateway, Principal principal, ApiException failure) {
        if (!gateway.authorizesPerUser() || failure.code() != ErrorCode.OAUTH_REQUIRED) {
            return Optional.empty();
        }
        GatewayOAuth.Initiation started;
        try {
            started = oauth.initiate(gateway, principal, publicUrl.get() + CONSOLE_RETURN);
        } catch (ApiException e) {
            return Optional.empty(); // the authorization server cannot be used now: the tool error says why
        }
        return Optional.of(new Required(List.of(new UrlElicitation(
                "url",
                java.util.UUID.randomUUID().toString(),
                started.authorizationUrl(),
                "Gateway '" + gateway.name() + "' acts as each of its users: authorize it as yourself at this "
                        + "address, then call again."))));
    }
}
