package dev.arbor.triggers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.events.providers.PayloadPath;
import dev.arbor.platform.json.Json;
import java.util.List;
import java.util.Optional;

/**
 * What an event must hold for a trigger to fire: each condition's path (rooted at the envelope) has a value equal to
 * the condition's, or to one of its list; every condition must hold. No conditions: every event holds.
 */
record EventFilter(List<Condition> conditions) {
    EventFilter {
        conditions = List.copyOf(conditions);
    }

    /**
     * @param expected a string, number or boolean (equality), or a list of them (membership)
     */
    record Condition(PayloadPath path, JsonNode expected) {
        Condition {
            requireNonNull(path, "path");
            expected = expected.deepCopy();
        }

        boolean holds(JsonNode envelope) {
            Optional<JsonNode> value = path.read(envelope);
            if (value.isEmpty()) {
                return false;
            }
            if (expected.isArray()) {
                for (JsonNode item : expected) {
                    if (same(item, value.get())) {
                        return true;
                    }
                }
                return false;
            }
            return same(expected, value.get());
        }

        /** JSON equality, where numbers are equal by value ({@code 1} is {@code 1.0}). */
        private static boolean same(JsonNode a, JsonNode b) {
            if (a.isNumber() && b.isNumber()) {
                return a.decimalValue().compareTo(b.decimalValue()) == 0;
            }
            return a.equals(b);
        }
    }

    boolean holds(JsonNode envelope) {
        return conditions.stream().allMatch(condition -> condition.holds(envelope));
    }

    ObjectNode toJson() {
        ObjectNode json = Json.object();
        conditions.forEach(condition -> json.set(condition.path().text(), condition.expected()));
        return json;
    }
}
