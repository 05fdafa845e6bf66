package dev.arbor.studio.questions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One question of a decision as it is asked: its key, its definition in the templates' normal form (placeholders
 * filled), and where it came from.
 *
 * @param origin {@code template}, {@code extended} (the caller added options), {@code extra} (the caller added the
 *     question) or {@code adhoc} (no template)
 * @param dynamicOptions whether its options came from an options variable
 */
public record Question(String key, ObjectNode definition, String origin, boolean dynamicOptions) {
    public Question {
        requireNonNull(key, "key");
        requireNonNull(definition, "definition");
        requireNonNull(origin, "origin");
    }

    public String type() {
        return definition.path("type").asText();
    }

    public JsonNode criteria() {
        return definition.path("criteria");
    }

    /** Option names (choice, multi, rank), level keys {@code "0".."n-1"} (score) or values (number). */
    public List<String> optionKeys() {
        var keys = new ArrayList<String>();
        switch (type()) {
            case "score" -> {
                for (int i = 0; i < criteria().size(); i++) {
                    keys.add(Integer.toString(i));
                }
            }
            case "noul" -> keys.addAll(List.of("false", "true"));
            default -> criteria().fieldNames().forEachRemaining(keys::add);
        }
        return List.copyOf(keys);
    }
}
