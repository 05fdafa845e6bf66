package dev.arbor.platform.actions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.hubspot.jinjava.Jinjava;
import com.hubspot.jinjava.JinjavaConfig;
import com.hubspot.jinjava.interpret.JinjavaInterpreter;
import com.hubspot.jinjava.interpret.TemplateError;
import com.hubspot.jinjava.interpret.UnknownTokenException;
import dev.arbor.platform.json.Json;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Templates and conditions of a run, in Jinja syntax (Jinjava): {@code {{ params.x }}},
 * {@code {{ steps.<id>.outputs.<key> }}}, {@code {{ event.x }}}. Strict: a reference to nothing is an error the run
 * reports, never an empty string or a silent false. A template that is one expression and nothing else keeps the
 * expression's type (a list stays a list); a rendered result is never rendered again.
 */
public final class Expressions {
    private static final Pattern ONE_EXPRESSION =
            Pattern.compile("\\s*\\{\\{((?:(?!\\{\\{|}}).)*)}}\\s*", Pattern.DOTALL);
    private static final Pattern EXPRESSION = Pattern.compile("\\{\\{(.*?)}}", Pattern.DOTALL);
    /** A path from a root, and whether a default or an {@code is defined} test guards it. */
    private static final Pattern PATH = Pattern.compile("(?<![A-Za-z0-9_.])((?:params|steps|event)"
            + "(?:\\.[A-Za-z_][A-Za-z0-9_]*)*)(\\s*\\|\\s*default\\b|\\s+is\\s+(?:not\\s+)?defined\\b)?");

    private static final int MAX_TEXT = 1_000_000;

    private final Jinjava jinjava = new Jinjava(JinjavaConfig.newBuilder()
            .withFailOnUnknownTokens(true)
            .withNestedInterpretationEnabled(false)
            .withMaxOutputSize(MAX_TEXT)
            .withMaxStringLength(MAX_TEXT)
            .withMaxListSize(10_000)
            .withMaxMapSize(10_000)
            .withMaxRenderDepth(10)
            // Java's own regular expressions backtrack: a pattern can keep a core busy for ever. Templates match with
            // the regex_replace filter, which runs on RE2/J.
            .withRestrictedMethods(Set.of("matches", "replaceAll", "replaceFirst", "split", "splitWithDelimiters"))
            .build());

    /** A template or condition that cannot be worked out, with why. */
    public static final class ExpressionException extends RuntimeException {
        ExpressionException(String message) {
            super(message);
        }
    }

    /**
     * Renders every template in a value (strings anywhere inside objects and arrays), except fields named
     * {@code condition}: those are expressions the action evaluates itself, when it needs them.
     */
    public JsonNode render(JsonNode value, Map<String, Object> scope) {
        if (value.isTextual() && value.textValue().contains("{{")) {
            return renderText(value.textValue(), scope);
        }
        if (value.isObject()) {
            ObjectNode rendered = Json.object();
            value.properties()
                    .forEach(field -> rendered.set(
                            field.getKey(),
                            field.getKey().equals("condition") ? field.getValue() : render(field.getValue(), scope)));
            return rendered;
        }
        if (value.isArray()) {
            var rendered = Json.mapper().createArrayNode();
            value.forEach(item -> rendered.add(render(item, scope)));
            return rendered;
        }
        return value;
    }

    private JsonNode renderText(String text, Map<String, Object> scope) {
        Matcher one = ONE_EXPRESSION.matcher(text);
        if (one.matches()) {
            Object value = evaluate(one.group(1), scope);
            return value == null ? NullNode.getInstance() : Json.mapper().valueToTree(value);
        }
        Matcher expression = EXPRESSION.matcher(text);
        while (expression.find()) {
            requireDefined(expression.group(1), scope);
        }
        var result = jinjava.renderForResult(text, scope);
        failOnErrors(result.getErrors(), text);
        return TextNode.valueOf(result.getOutput());
    }

    /**
     * Whether a condition holds: a boolean expression, with or without its {@code {{ }}}. Anything but true or false
     * is an error, so that a typo cannot read as false.
     */
    public boolean holds(String condition, Map<String, Object> scope) {
        Matcher one = ONE_EXPRESSION.matcher(condition);
        String expression = one.matches() ? one.group(1) : condition;
        if (expression.isBlank()) {
            throw new ExpressionException("the condition is empty");
        }
        Object value = evaluate(expression, scope);
        if (value instanceof Boolean holds) {
            return holds;
        }
        throw new ExpressionException("the condition `" + expression.strip() + "` gives "
                + (value == null ? "nothing" : "'" + value + "'") + ", not true or false");
    }

    private Object evaluate(String expression, Map<String, Object> scope) {
        requireDefined(expression, scope);
        JinjavaInterpreter interpreter = jinjava.newInterpreter();
        interpreter.getContext().putAll(scope);
        try (var _ = JinjavaInterpreter.closeablePushCurrent(interpreter).get()) {
            Object value = interpreter.resolveELExpression(expression, 1);
            failOnErrors(interpreter.getErrors(), expression);
            return value;
        } catch (UnknownTokenException e) {
            throw new ExpressionException(
                    "`" + expression.strip() + "` refers to " + e.getToken() + ", which is not defined here");
        }
    }

    /**
     * Jinjava lets a missing key read as nothing inside a larger expression ({@code a and event.nope} is false), so
     * every path into the run's data is looked up first; one guarded by {@code default} or {@code is defined} may be
     * missing. A path into something other than an object (a list, text) is left to Jinja.
     */
    private static void requireDefined(String expression, Map<String, Object> scope) {
        Matcher path = PATH.matcher(withoutQuotedText(expression));
        while (path.find()) {
            if (path.group(2) != null) {
                continue;
            }
            Object at = scope;
            for (String name : path.group(1).split("\\.")) {
                if (!(at instanceof Map<?, ?> object)) {
                    break;
                }
                if (!object.containsKey(name)) {
                    throw new ExpressionException(
                            "`" + expression.strip() + "` refers to " + path.group(1) + ", which is not defined here");
                }
                at = object.get(name);
            }
        }
    }

    /**
     * Why a condition (with or without its {@code {{ }}}) is not an expression at all; empty when it parses. What it
     * refers to is not looked up: a condition over data known only when it runs parses all the same.
     */
    public Optional<String> syntaxError(String condition) {
        Matcher one = ONE_EXPRESSION.matcher(condition);
        String expression = one.matches() ? one.group(1) : condition;
        if (expression.isBlank()) {
            return Optional.of("the condition is empty");
        }
        JinjavaInterpreter interpreter = jinjava.newInterpreter();
        try (var _ = JinjavaInterpreter.closeablePushCurrent(interpreter).get()) {
            interpreter.resolveELExpression(expression, 1);
        } catch (UnknownTokenException e) {
            return Optional.empty(); // parsed; it refers to data this check has not got
        } catch (RuntimeException e) {
            return Optional.of(String.valueOf(e.getMessage()));
        }
        return interpreter.getErrors().stream()
                .filter(error -> error.getReason() == TemplateError.ErrorReason.SYNTAX_ERROR)
                .findFirst()
                .map(TemplateError::getMessage);
    }

    /** Quoted text inside an expression is text, not a reference: {@code 'params.x'} refers to nothing. */
    public static String withoutQuotedText(String expression) {
        return expression.replaceAll("'[^']*'|\"[^\"]*\"", "''");
    }

    private static void failOnErrors(List<TemplateError> errors, String text) {
        errors.stream()
                .filter(error -> error.getSeverity() == TemplateError.ErrorType.FATAL)
                .findFirst()
                .ifPresent(error -> {
                    throw new ExpressionException("`" + text.strip() + "` cannot be worked out: " + error.getMessage());
                });
    }

    /** A stored JSON value as the plain maps, lists and scalars templates read. */
    public static Object plain(JsonNode value) {
        return Json.mapper().convertValue(value, Object.class);
    }
}
