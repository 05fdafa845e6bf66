package dev.arbor.studio.history;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyField.Presence;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** How much of a decision history keeps, from most to least: the most private of the levels asked for wins. */
public enum StoreLevel {
    FULL,
    ANSWERS_ONLY,
    NONE;

    /** What a failed history write does: {@code serve} the answer anyway, or {@code fail} the decision (true). */
    public static final BodyField.Word<Boolean> ON_STORE_ERROR =
            BodyField.word(Presence.OPTIONAL, "on_store_error", List.of(false, true), fail -> fail ? "fail" : "serve");

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public StoreLevel mostPrivate(StoreLevel other) {
        return compareTo(other) >= 0 ? this : other;
    }

    /** {@code "full"}, {@code "answers_only"}, {@code "none"}, booleans, and their string forms. */
    public static Optional<StoreLevel> parse(JsonNode node) {
        if (node.isBoolean()) {
            return Optional.of(node.booleanValue() ? FULL : NONE);
        }
        if (!node.isTextual()) {
            return Optional.empty();
        }
        return switch (node.textValue().trim().toLowerCase(Locale.ROOT)) {
            case "full", "true", "1" -> Optional.of(FULL);
            case "answers_only" -> Optional.of(ANSWERS_ONLY);
            case "none", "false", "0" -> Optional.of(NONE);
            default -> Optional.empty();
        };
    }

    public static StoreLevel of(String wire) {
        return valueOf(wire.toUpperCase(Locale.ROOT));
    }
}
