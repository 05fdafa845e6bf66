package dev.arbor.keys;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.arbor.platform.errors.Warning;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/** The answers of the key routes, as records the one JSON codec writes. Times are Unix seconds. */
final class KeyReplies {
    private KeyReplies() {}

    /** A key as every route shows it: never its secret. */
    @JsonPropertyOrder({
        "id",
        "object",
        "project_id",
        "name",
        "hint",
        "status",
        "routers",
        "models",
        "metadata",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
        "limits"
    })
    record KeyJson(
            @JsonProperty("id") String id,
            @JsonProperty("object") String object,
            @JsonProperty("project_id") String projectId,
            @JsonProperty("name") String name,
            @JsonProperty("hint") String hint,
            @JsonProperty("status") String status,
            @JsonProperty("routers") List<String> routers,
            @JsonProperty("models") List<String> models,
            @JsonProperty("metadata") Map<String, String> metadata,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("expires_at") @Nullable Long expiresAt,
            @JsonProperty("last_used_at") @Nullable Long lastUsedAt,
            @JsonProperty("revoked_at") @Nullable Long revokedAt,
            @JsonProperty("limits") LimitsJson limits) {
        static KeyJson of(InferenceKey key, long nowMillis) {
            String status =
                    key.revokedAtMillis().isPresent() ? "revoked" : key.liveAt(nowMillis) ? "active" : "expired";
            return new KeyJson(
                    key.id(),
                    "inference_key",
                    key.projectId(),
                    key.name(),
                    key.hint(),
                    status,
                    key.routers(),
                    key.models(),
                    new TreeMap<>(key.metadata()),
                    key.createdAtMillis() / 1000,
                    key.expiresAtMillis().map(millis -> millis / 1000).orElse(null),
                    key.lastUsedAtMillis().map(millis -> millis / 1000).orElse(null),
                    key.revokedAtMillis().map(millis -> millis / 1000).orElse(null),
                    new LimitsJson(
                            key.limits().requestsPerMinute().orElse(null),
                            key.limits().tokensPerMinute().orElse(null)));
        }
    }

    /** A key's limits; {@code null}: no limit of that kind. */
    @JsonPropertyOrder({"requests_per_minute", "tokens_per_minute"})
    record LimitsJson(
            @JsonProperty("requests_per_minute") @Nullable Long requestsPerMinute,
            @JsonProperty("tokens_per_minute") @Nullable Long tokensPerMinute) {}

    /** A key as {@code GET /keys/{id}} shows it: with what it spent. */
    record WithSpend(
            @JsonUnwrapped KeyJson about,
            @JsonProperty("spend") Record spend) {}

    /** A new key, with its secret: the one time it is shown. */
    record Created(
            @JsonUnwrapped KeyJson about,
            @JsonProperty("key") String secret,
            @JsonProperty("warnings") List<Warning> warnings) {}
}
