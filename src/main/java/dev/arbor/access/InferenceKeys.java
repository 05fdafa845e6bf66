package dev.arbor.access;

import io.javalin.http.Context;
import java.util.Optional;

/**
 * The check of an inference key ({@code sk-arb-...}), which another feature keeps: the caller it names, a member of
 * the key's one project that may call only the inference routes ({@code /v1/...}).
 */
public interface InferenceKeys {
    /** What every inference key's secret starts with: a bearer secret with it is never an API token. */
    String PREFIX = "sk-arb-";

    /** Who the live key with this secret is; empty when it is no live key's (unknown, revoked or expired). */
    Optional<Principal> authenticate(String secret, Context ctx);
}
