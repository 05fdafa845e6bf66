package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Principal;

/**
 * Who calls a gateway's server through Arbor, as a gateway that authorizes each user on its own ({@code
 * credentials.authorization: per_user}) tells its users apart: an admin or member API token, or an inference key. Its
 * {@link #id()} is the token's or the key's id, which never changes and is never a secret, so that what a user
 * authorized is found again on every server sharing the database and goes when the token is revoked or the key
 * deleted.
 */
public record Identity(Kind kind, String id) {
    /** What kind of credential a caller showed. */
    public enum Kind {
        API_TOKEN,
        INFERENCE_KEY
    }

    public Identity {
        requireNonNull(kind, "kind");
        requireNonNull(id, "id");
    }

    /** The identity of the caller a request authenticated. */
    public static Identity of(Principal principal) {
        return new Identity(principal.isInferenceKey() ? Kind.INFERENCE_KEY : Kind.API_TOKEN, principal.tokenId());
    }
}
