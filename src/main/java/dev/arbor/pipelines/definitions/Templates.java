package dev.arbor.pipelines.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.Expressions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What templates ({@code {{ params.x }}}, {@code {{ steps.<id>.outputs.<key> }}}, {@code {{ event.x }}}) and
 * conditions (the same expressions, without braces) refer to, so that a definition is checked before it runs.
 */
final class Templates {
    private static final Pattern EXPRESSION = Pattern.compile("\\{\\{(.*?)}}", Pattern.DOTALL);
    private static final Pattern REFERENCE = Pattern.compile(
            "(?<![A-Za-z0-9_.])(params|steps|event)(?:\\.([A-Za-z_][A-Za-z0-9_]*))?(?:\\.outputs(?:\\.([A-Za-z_][A-Za-z0-9_]*))?)?");

    /** A root ({@code params}, {@code steps}, {@code event}), the name under it, and a step's output key. */
    record Reference(String root, Optional<String> name, Optional<String> output) {}

    private Templates() {}

    /** Whether a value is a string holding a {@code {{ }}} expression, known only at run time. */
    static boolean hasReference(JsonNode value) {
        return value.isTextual() && value.textValue().contains("{{");
    }

    /** The references of every template in a value (strings anywhere inside objects and arrays). */
    static List<Reference> inValue(JsonNode value) {
        var found = new ArrayList<Reference>();
        collect(value, found);
        return found;
    }

    /** The references of a condition: an expression, with or without braces. */
    static List<Reference> inExpression(String expression) {
        var found = new ArrayList<Reference>();
        references(expression, found);
        return found;
    }

    private static void collect(JsonNode value, List<Reference> found) {
        if (value.isTextual()) {
            Matcher expression = EXPRESSION.matcher(value.textValue());
            while (expression.find()) {
                references(expression.group(1), found);
            }
        } else if (value.isContainerNode()) {
            value.forEach(item -> collect(item, found));
        }
    }

    private static void references(String expression, List<Reference> found) {
        Matcher reference = REFERENCE.matcher(Expressions.withoutQuotedText(expression));
        while (reference.find()) {
            found.add(new Reference(
                    reference.group(1),
                    Optional.ofNullable(reference.group(2)),
                    Optional.ofNullable(reference.group(3))));
        }
    }
}
