package dev.arbor.keys;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.http.bodies.BodyReader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The checks of a key's fields beyond each field's own shape: its metadata's size and its expiry in the future. */
final class KeyRules {
    static final int MAX_METADATA_ENTRIES = 16;
    static final int MAX_METADATA_NAME = 64;
    static final int MAX_METADATA_VALUE = 500;

    private KeyRules() {}

    /**
     * The metadata a body sends, an object of strings; refused on {@code body} when it is something else, has too many
     * entries or too long names or values.
     */
    static Optional<Map<String, String>> metadata(Optional<JsonNode> sent, BodyReader body) {
        if (sent.isEmpty()) {
            return Optional.empty();
        }
        if (!sent.get().isObject()) {
            body.reject("metadata", ErrorCode.INVALID_FIELD, "must be an object of strings");
            return Optional.empty();
        }
        var entries = new LinkedHashMap<String, String>();
        for (var entry : sent.get().properties()) {
            if (!entry.getValue().isTextual()) {
                rejectEntry(body, entry.getKey(), "must be a string");
            } else {
                entries.put(entry.getKey(), entry.getValue().textValue());
            }
        }
        if (entries.size() > MAX_METADATA_ENTRIES) {
            body.reject(
                    "metadata",
                    ErrorCode.INVALID_FIELD,
                    "has " + entries.size() + " entries; at most " + MAX_METADATA_ENTRIES + " are kept");
        }
        entries.forEach((name, value) -> {
            if (name.isEmpty() || name.length() > MAX_METADATA_NAME) {
                body.reject(
                        "metadata",
                        ErrorCode.INVALID_FIELD,
                        "has the name '" + name.substring(0, Math.min(name.length(), MAX_METADATA_NAME))
                                + "', but a name is 1 to " + MAX_METADATA_NAME + " characters");
            }
            if (value.length() > MAX_METADATA_VALUE) {
                rejectEntry(
                        body,
                        name,
                        "is " + value.length() + " characters long; at most " + MAX_METADATA_VALUE + " are kept");
            }
        });
        return Optional.of(entries);
    }

    private static void rejectEntry(BodyReader body, String name, String why) {
        String param = ParamPath.key("metadata", name);
        body.problems().add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }

    /** Refuses, on {@code body}, an expiry that is not in the future. */
    static void checkExpiry(Optional<Long> expiresAtSeconds, long nowMillis, BodyReader body) {
        if (expiresAtSeconds.isPresent() && expiresAtSeconds.get() * 1000 <= nowMillis) {
            body.reject("expires_at", ErrorCode.INVALID_FIELD, "must be in the future (Unix seconds)");
        }
    }
}
