package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JSONPath into a provider's payload, in the plain form descriptors use: {@code $} followed by {@code .name},
 * {@code ['name']} (a name with dots or other signs, such as {@code '@odata.type'}) and {@code [index]} steps. No
 * wildcards or filters: each path names at most one value. Triggers read events with it too (rooted at the envelope).
 */
public record PayloadPath(String text, List<Step> steps) {
    private static final Pattern STEP =
            Pattern.compile("\\.([A-Za-z_$][A-Za-z0-9_$-]*)|\\['([^']+)'\\]|\\[(\\d{1,6})\\]");

    /** One step: into an object's field, or into an array's item. */
    public sealed interface Step {
        record Field(String name) implements Step {}

        record Item(int index) implements Step {}
    }

    public PayloadPath {
        requireNonNull(text, "text");
        steps = List.copyOf(steps);
    }

    /** The path {@code text} names, or empty when it is not a path of this form. */
    public static Optional<PayloadPath> parse(String text) {
        requireNonNull(text, "text");
        if (!text.startsWith("$")) {
            return Optional.empty();
        }
        var steps = new ArrayList<Step>();
        Matcher matcher = STEP.matcher(text);
        int at = 1;
        while (at < text.length()) {
            if (!matcher.find(at) || matcher.start() != at) {
                return Optional.empty();
            }
            if (matcher.group(1) != null) {
                steps.add(new Step.Field(matcher.group(1)));
            } else if (matcher.group(2) != null) {
                steps.add(new Step.Field(matcher.group(2)));
            } else {
                steps.add(new Step.Item(Integer.parseInt(matcher.group(3))));
            }
            at = matcher.end();
        }
        return Optional.of(new PayloadPath(text, steps));
    }

    /** The value at this path, when there is one that is not JSON {@code null}. */
    public Optional<JsonNode> read(JsonNode payload) {
        JsonNode node = requireNonNull(payload, "payload");
        for (Step step : steps) {
            node = switch (step) {
                case Step.Field field -> node.isObject() ? node.get(field.name()) : null;
                case Step.Item item -> node.isArray() ? node.get(item.index()) : null;
            };
            if (node == null) {
                return Optional.empty();
            }
        }
        return node.isNull() || node.isMissingNode() ? Optional.empty() : Optional.of(node);
    }

    /** The value at this path as text: a string as it is, a number or boolean as JSON writes it. */
    public Optional<String> readText(JsonNode payload) {
        return read(payload).filter(JsonNode::isValueNode).map(JsonNode::asText);
    }

    @Override
    public String toString() {
        return text;
    }
}
