package dev.arbor.studio.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What a redaction removes from a stored decision: parts of its input ({@code input.state},
 * {@code input.rendered_state}, {@code input.variables}, {@code input.variables.<name>}, {@code input.media}) and
 * metadata keys ({@code metadata.<key>}). Answers, raw probabilities and settings stay, so history still counts
 * the decision; redacting a variable redacts the state and rendered state too, since they were made from it. The
 * paths accumulate in {@code input.redacted}, and a redacted input can no longer be read back or rerun.
 */
record Redaction(List<String> fields) {
    static final String MARK = "[redacted]";

    Redaction {
        fields = List.copyOf(fields);
    }

    /** The fields of a request body, each path checked. */
    static Redaction parse(JsonNode node, Problems problems) {
        if (node == null || !node.isArray() || node.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "fields",
                    "`fields` must be a list of paths to redact, such as "
                            + "input.state, input.variables.<name>, input.media or metadata.<key>.");
            return new Redaction(List.of());
        }
        var fields = new LinkedHashSet<String>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            String path = item.isTextual() ? item.textValue() : "";
            boolean ok = Set.of("input.state", "input.rendered_state", "input.variables", "input.media")
                            .contains(path)
                    || (path.startsWith("input.variables.") && path.length() > 16)
                    || (path.startsWith("metadata.") && path.length() > 9);
            if (ok) {
                fields.add(path);
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        ParamPath.index("fields", i),
                        "`" + item.asText() + "` cannot "
                                + "be redacted; the paths are input.state, input.rendered_state, input.variables, "
                                + "input.variables.<name>, input.media and metadata.<key>.");
            }
        }
        return new Redaction(new ArrayList<>(fields));
    }

    /** Redacts a copy of the input (absent when history kept none) in place of the original. */
    void apply(ObjectNode input) {
        boolean variables = false;
        for (String field : fields) {
            switch (field) {
                case "input.state" -> input.put("state", MARK);
                case "input.rendered_state" -> input.put("rendered_state", MARK);
                case "input.variables" -> {
                    if (input.path("variables").isObject()) {
                        input.put("variables", MARK);
                    }
                    variables = true;
                }
                case "input.media" ->
                    input.path("media").forEach(item -> {
                        ObjectNode media = (ObjectNode) item;
                        media.putNull("name");
                        media.put("available", false);
                    });
                default -> {
                    if (field.startsWith("input.variables.")) {
                        String name = field.substring("input.variables.".length());
                        if (input.path("variables").has(name)) {
                            ((ObjectNode) input.get("variables")).put(name, MARK);
                        }
                        variables = true;
                    }
                }
            }
        }
        if (variables) {
            input.put("state", MARK);
            input.put("rendered_state", MARK);
        }
        if (fields.stream().anyMatch(f -> f.startsWith("input."))) {
            ArrayNode redacted = input.has("redacted") ? (ArrayNode) input.get("redacted") : input.putArray("redacted");
            fields.stream().filter(f -> f.startsWith("input.")).forEach(f -> {
                if (!contains(redacted, f)) {
                    redacted.add(f);
                }
            });
        }
    }

    /** Removes the metadata keys named; returns whether any was there. */
    boolean applyToMetadata(ObjectNode metadata) {
        boolean changed = false;
        for (String field : fields) {
            if (field.startsWith("metadata.")) {
                changed |= metadata.remove(field.substring("metadata.".length())) != null;
            }
        }
        return changed;
    }

    private static boolean contains(ArrayNode array, String value) {
        for (JsonNode item : array) {
            if (item.asText().equals(value)) {
                return true;
            }
        }
        return false;
    }
}
