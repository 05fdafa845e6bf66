package dev.arbor.studio.erasure;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.studio.history.DecisionInput;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
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

    /** The input (absent when history kept none) with what this redaction names replaced by the mark. */
    DecisionInput apply(DecisionInput input) {
        JsonNode mark = TextNode.valueOf(MARK);
        JsonNode variables = input.variables();
        JsonNode state = input.state();
        JsonNode renderedState = input.renderedState();
        List<DecisionInput.Media> media = input.media();
        boolean variablesRedacted = false;
        for (String field : fields) {
            switch (field) {
                case "input.state" -> state = mark;
                case "input.rendered_state" -> renderedState = mark;
                case "input.variables" -> {
                    if (variables.isObject()) {
                        variables = mark;
                    }
                    variablesRedacted = true;
                }
                case "input.media" ->
                    media = media.stream()
                            .map(item -> new DecisionInput.Media(
                                    item.type(),
                                    item.fileId(),
                                    Optional.empty(),
                                    item.variable(),
                                    item.contentType(),
                                    item.bytes(),
                                    item.sha256(),
                                    false))
                            .toList();
                default -> {
                    if (field.startsWith("input.variables.")) {
                        String name = field.substring("input.variables.".length());
                        if (variables instanceof ObjectNode object && object.has(name)) {
                            object.set(name, mark);
                        }
                        variablesRedacted = true;
                    }
                }
            }
        }
        if (variablesRedacted) {
            state = mark;
            renderedState = mark;
        }
        var redacted = new ArrayList<>(input.redacted());
        fields.stream()
                .filter(f -> f.startsWith("input.") && !redacted.contains(f))
                .forEach(redacted::add);
        return new DecisionInput(variables, state, media, input.questions(), renderedState, redacted);
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
}
