package dev.arbor.platform.http.server;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Access;
import dev.arbor.platform.http.Requests;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;

/**
 * Contract section 5 for {@code /v1/studio} and the wire format {@code /v1/decide}: the API key when one is
 * configured; without one, remote callers may only make decisions and list models.
 */
final class StudioKeyGuard {
    private final Optional<byte[]> key;

    StudioKeyGuard(Optional<String> apiKey) {
        this.key = apiKey.map(k -> k.getBytes(StandardCharsets.UTF_8));
    }

    void check(Context ctx) {
        if (Access.of(ctx.path()) != Access.STUDIO) {
            return;
        }
        if (key.isPresent()) {
            String authorization = ctx.header("Authorization");
            if (authorization == null || authorization.isBlank()) {
                throw ApiException.of(
                        ErrorCode.MISSING_API_KEY,
                        "This studio needs an API key: send Authorization: Bearer <STUDIO_API_KEY>.");
            }
            byte[] sent = Requests.bearer(authorization).getBytes(StandardCharsets.UTF_8);
            if (!MessageDigest.isEqual(sent, key.get())) {
                throw ApiException.of(ErrorCode.INVALID_API_KEY, "The API key does not match.");
            }
            return;
        }
        if (!Requests.isLocalCaller(ctx) && !openToRemoteCallers(ctx.method(), ctx.path())) {
            throw ApiException.of(
                    ErrorCode.REMOTE_ACCESS_REQUIRES_KEY,
                    "Only callers on this computer may use this without an API key; set STUDIO_API_KEY "
                            + "on the server to open it to others.");
        }
    }

    private static boolean openToRemoteCallers(HandlerType method, String path) {
        return (method.equals(HandlerType.POST)
                        && (path.equals("/v1/studio/decisions")
                                || path.equals("/v1/studio/decisions/preview")
                                || path.equals("/v1/decide")))
                || (method.equals(HandlerType.GET) && path.equals("/v1/studio/models"));
    }
}
