package dev.arbor.connectors.oauth;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A gateway's authorization as {@code GET /connectors/{gateway_id}/oauth/status} shows it to its caller: configured
 * apart from authorized, and on a gateway that authorizes per user only the caller's own authorization. Times are
 * seconds; what is unknown is null.
 */
@JsonPropertyOrder({
    "object",
    "gateway_id",
    "status",
    "configured",
    "authorization",
    "authorization_server",
    "client",
    "scopes",
    "expires_at",
    "refreshable",
    "authorized_at",
    "authorized_by",
    "refreshed_at",
    "error"
})
record OAuthStatus(
        @JsonProperty("gateway_id") String gatewayId,
        String status,
        boolean configured,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String authorization,
        @JsonProperty("authorization_server") @Nullable String authorizationServer,
        @Nullable String client,
        List<String> scopes,
        @JsonProperty("expires_at") @Nullable Long expiresAt,
        boolean refreshable,
        @JsonProperty("authorized_at") @Nullable Long authorizedAt,
        @JsonProperty("authorized_by") @Nullable String authorizedBy,
        @JsonProperty("refreshed_at") @Nullable Long refreshedAt,
        @Nullable Failure error) {
    OAuthStatus {
        scopes = List.copyOf(scopes);
    }

    @JsonProperty("object")
    String object() {
        return "connector.oauth.status";
    }

    /** The last thing that went wrong, until an authorization succeeds. */
    record Failure(String code, String message, long at) {}

    /** The status as an authorization's callback answers it: with what fetching the tools changed, or its error. */
    record Finished(@JsonUnwrapped OAuthStatus status, Object tools) {}

    /** The status as a disconnect answers it: whether there were tokens to forget. */
    record Disconnected(@JsonUnwrapped OAuthStatus status, boolean disconnected) {}

    /** Why the tools could not be fetched as an authorization finished (authorized all the same). */
    record ToolsFailure(ToolsError error) {}

    record ToolsError(String code, String message) {}
}
