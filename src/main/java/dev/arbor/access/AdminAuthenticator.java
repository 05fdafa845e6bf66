package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.Requests;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Decides who calls the admin API (everything outside the studio and the platform's public routes): a bearer token,
 * {@code ARBOR_ADMIN_TOKEN}, or, until the first token is made, any caller on this computer as a local admin.
 */
final class AdminAuthenticator implements Handler {
    static final String PRINCIPAL = "arbor.principal";

    private final TokenStore tokens;
    private final Optional<byte[]> adminToken;
    private volatile InferenceKeys inferenceKeys = (secret, ctx) -> Optional.empty();

    AdminAuthenticator(TokenStore tokens, Optional<String> adminToken) {
        this.tokens = requireNonNull(tokens, "tokens");
        this.adminToken = adminToken.map(t -> t.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void handle(Context ctx) {
        if (Access.of(ctx.path()) != Access.ADMIN || ctx.method().equals(HandlerType.OPTIONS)) {
            return;
        }
        Principal principal = authenticate(ctx);
        if (principal.isInferenceKey() && !ctx.path().startsWith("/v1/")) {
            throw ApiException.of(
                    ErrorCode.INFERENCE_KEY_NOT_ALLOWED,
                    "An inference key (sk-arb-...) may call only the OpenAI-compatible routes (/v1/...) of its "
                            + "project; the rest of the API takes an admin or member token.");
        }
        // the route the request matched, not its path: /metrics/ is the same route
        var matched = ctx.endpoints().matchedHttpEndpoint();
        if (Access.wholeServer(matched == null ? ctx.path() : matched.path) && !principal.isAdmin()) {
            throw ApiException.of(
                    ErrorCode.ADMIN_REQUIRED, "Only an admin token may read this: it shows every project.");
        }
        ctx.attribute(PRINCIPAL, principal);
    }

    private Principal authenticate(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization == null || authorization.isBlank()) {
            if (adminToken.isPresent() || tokens.anyEverMade()) {
                throw ApiException.of(
                        ErrorCode.MISSING_API_KEY,
                        "Send an API token, an admin's or a member's (a member's acts in its projects only): "
                                + "Authorization: Bearer <token>. Lost them all? On the server's machine, `arbor token "
                                + "create` makes a new admin token.");
            }
            if (!Requests.isLocalCaller(ctx)) {
                throw ApiException.of(
                        ErrorCode.REMOTE_ACCESS_REQUIRES_KEY,
                        "No API token exists yet, so only callers on this computer may use the admin API; "
                                + "create a token (POST /auth/tokens) or set ARBOR_ADMIN_TOKEN.");
            }
            return Principal.LOCAL_ADMIN;
        }
        String secret = Requests.bearer(authorization);
        if (secret.startsWith(InferenceKeys.PREFIX)) {
            return inferenceKeys
                    .authenticate(secret, ctx)
                    .orElseThrow(() -> ApiException.of(
                            ErrorCode.INVALID_API_KEY, "The inference key is unknown, revoked or expired."));
        }
        return bearer(authorization)
                .orElseThrow(() ->
                        ApiException.of(ErrorCode.INVALID_API_KEY, "The API token is unknown, revoked or expired."));
    }

    /**
     * Who a request's credentials name as the admin API reads them, refusing nothing: for a route outside the admin
     * API that serves more to a caller who shows a token. None without a token, or with one this server does not know,
     * unless no token is needed yet and the caller is on this computer (the local admin).
     */
    Optional<Principal> identify(Context ctx) {
        String authorization = ctx.header("Authorization");
        if (authorization == null || authorization.isBlank()) {
            boolean tokenNeeded = adminToken.isPresent() || tokens.anyEverMade();
            return !tokenNeeded && Requests.isLocalCaller(ctx) ? Optional.of(Principal.LOCAL_ADMIN) : Optional.empty();
        }
        return bearer(authorization);
    }

    /** Accepts inference keys as bearer secrets on the inference routes, checked by {@code keys}. */
    void acceptInferenceKeys(InferenceKeys keys) {
        this.inferenceKeys = requireNonNull(keys, "keys");
    }

    /** An API token's caller; an inference key names none here (it serves only the inference routes). */
    private Optional<Principal> bearer(String authorization) {
        String secret = Requests.bearer(authorization);
        if (adminToken.isPresent()
                && MessageDigest.isEqual(secret.getBytes(StandardCharsets.UTF_8), adminToken.get())) {
            return Optional.of(Principal.ENV_ADMIN);
        }
        return tokens.findActive(secret).map(ApiToken::principal);
    }
}
