package dev.arbor.keys;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An inference key as stored (its secret is not: only its hash).
 *
 * @param hint the secret's first characters, to tell keys apart
 * @param routers the routers it may call, by name or id; empty with {@code models} empty: all of its project's
 * @param models the deployments and cloud models it may call directly, by name or id
 */
record InferenceKey(
        String id,
        String projectId,
        String name,
        String hint,
        List<String> routers,
        List<String> models,
        Map<String, String> metadata,
        KeyLimits limits,
        long createdAtMillis,
        Optional<Long> expiresAtMillis,
        Optional<Long> lastUsedAtMillis,
        Optional<Long> revokedAtMillis) {
    InferenceKey {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(name, "name");
        requireNonNull(hint, "hint");
        routers = List.copyOf(routers);
        models = List.copyOf(models);
        metadata = Map.copyOf(metadata);
        requireNonNull(limits, "limits");
        requireNonNull(expiresAtMillis, "expiresAtMillis");
        requireNonNull(lastUsedAtMillis, "lastUsedAtMillis");
        requireNonNull(revokedAtMillis, "revokedAtMillis");
    }

    /** Whether it authenticates at {@code nowMillis}: not revoked, not expired. */
    boolean liveAt(long nowMillis) {
        return revokedAtMillis.isEmpty()
                && expiresAtMillis.map(expires -> expires > nowMillis).orElse(true);
    }

    KeyScope scope() {
        return new KeyScope(id, projectId, routers, models, limits);
    }
}
