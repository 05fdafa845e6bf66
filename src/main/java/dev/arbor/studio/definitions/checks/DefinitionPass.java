package dev.arbor.studio.definitions.checks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.studio.definitions.Placeholders;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.definitions.VariableType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One pass of checks over a definition: the problems and warnings found, what the checks learn on the way (the
 * declared variables, those referenced, the question types) and the helpers every check uses.
 */
final class DefinitionPass {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    final Problems problems;
    final List<Warning> warnings = new ArrayList<>();
    final Map<String, Variable> variables = new LinkedHashMap<>();
    final Set<String> referenced = new HashSet<>();
    final Set<String> boundToCriteria = new HashSet<>();
    final Map<String, QuestionType> questionTypes = new LinkedHashMap<>();
    final Set<String> knownModels;
    /** Off for questions sent without a template, whose text is taken as it is. */
    final boolean placeholders;

    DefinitionPass(Problems problems, Set<String> knownModels, boolean placeholders) {
        this.problems = problems;
        this.knownModels = knownModels;
        this.placeholders = placeholders;
    }

    /** The rules for variable text in what the model reads as the question (kept in history as asked). */
    void questionText(String text, String param) {
        if (!placeholders) {
            return;
        }
        for (String name : Placeholders.names(text)) {
            Variable variable = declared(name, param);
            if (variable == null) {
                continue;
            }
            if (variable.type().isMedia()) {
                mediaInText(variable, param);
            } else if (variable.type() == VariableType.OPTIONS) {
                problems.add(
                        ErrorCode.INVALID_DEFINITION,
                        param,
                        "`" + name + "` is an options variable: it can "
                                + "only supply the whole `criteria` of a choice, multi or rank question.");
            } else if (variable.sensitive()) {
                problems.add(
                        ErrorCode.INVALID_DEFINITION,
                        param,
                        "`" + name + "` is sensitive, and question text is "
                                + "kept in history as asked; use it in the state instead.");
            } else if (!variable.closedVocabulary() && !variable.trusted()) {
                problems.add(
                        ErrorCode.UNTRUSTED_VARIABLE_IN_QUESTION,
                        param,
                        "Free text from `" + name + "` would "
                                + "change the question's wording; mark the variable `trusted: true` or give it an `enum`.");
            } else {
                referenced.add(name);
            }
        }
    }

    void mediaInText(Variable variable, String param) {
        problems.add(
                ErrorCode.MEDIA_VARIABLE_IN_TEXT,
                param,
                "`" + variable.name() + "` is a " + variable.type().wire()
                        + " variable: it is attached as media, it cannot stand in text.");
    }

    @Nullable
    Variable declared(String name, String param) {
        Variable variable = variables.get(name);
        if (variable == null) {
            problems.add(
                    ErrorCode.UNDECLARED_VARIABLE,
                    param,
                    "`{{" + name + "}}` names no declared variable."
                            + Placeholders.didYouMean(name, variables.keySet()));
        }
        return variable;
    }

    /** The {@code type} of a variable or question object, or a problem saying what it may be. */
    <T> Optional<T> type(
            JsonNode node, String param, java.util.function.Function<String, Optional<T>> parse, String names) {
        if (!node.isObject()) {
            invalid(param, "must be an object with a `type`");
            return Optional.empty();
        }
        JsonNode typeNode = node.get("type");
        if (isAbsent(typeNode)) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    param + ".type",
                    "`" + param + ".type` is required (one of " + names + ").");
            return Optional.empty();
        }
        Optional<T> parsed = typeNode.isTextual() ? parse.apply(typeNode.textValue()) : Optional.empty();
        if (parsed.isEmpty()) {
            invalid(param + ".type", "must be one of " + names);
        }
        return parsed;
    }

    String knownModelList() {
        return knownModels.isEmpty()
                ? " (there are none)"
                : " (models: " + String.join(", ", new java.util.TreeSet<>(knownModels)) + ")";
    }

    void invalid(String param, String why) {
        problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }

    Optional<String> text(JsonNode node, String key, String param, int max) {
        JsonNode value = node.get(key);
        if (isAbsent(value)) {
            return Optional.empty();
        }
        if (!value.isTextual() || value.textValue().length() > max) {
            invalid(ParamPath.key(param, key), "must be a string of at most " + max + " characters");
            return Optional.empty();
        }
        return Optional.of(value.textValue());
    }

    Optional<Integer> count(JsonNode node, String key, String param, int max) {
        JsonNode value = node.get(key);
        if (isAbsent(value)) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber() || value.asLong() < 0 || value.asLong() > max) {
            invalid(ParamPath.key(param, key), "must be a whole number from 0 to " + max);
            return Optional.empty();
        }
        return Optional.of(value.asInt());
    }

    boolean flag(JsonNode node, String key, String param, boolean fallback) {
        JsonNode value = node.get(key);
        if (isAbsent(value)) {
            return fallback;
        }
        if (!value.isBoolean()) {
            invalid(ParamPath.key(param, key), "must be true or false");
            return fallback;
        }
        return value.booleanValue();
    }

    static boolean isAbsent(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode();
    }

    static boolean allMatch(JsonNode array, java.util.function.Predicate<JsonNode> test) {
        for (JsonNode item : array) {
            if (!test.test(item)) {
                return false;
            }
        }
        return true;
    }

    static ArrayNode strings(Iterable<String> values) {
        ArrayNode array = NODES.arrayNode();
        values.forEach(array::add);
        return array;
    }

    static Optional<BigDecimal> parseNumber(String text) {
        try {
            BigDecimal value = new BigDecimal(text.trim());
            return Double.isFinite(value.doubleValue()) ? Optional.of(value.stripTrailingZeros()) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Calls {@code visit} with every string inside a JSON value (object values, not keys) and its param. */
    static void eachString(JsonNode node, String param, java.util.function.BiConsumer<String, String> visit) {
        if (node.isTextual()) {
            visit.accept(node.textValue(), param);
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                eachString(node.get(i), ParamPath.index(param, i), visit);
            }
        } else if (node.isObject()) {
            for (var entries = node.properties().iterator(); entries.hasNext(); ) {
                var entry = entries.next();
                eachString(entry.getValue(), ParamPath.key(param, entry.getKey()), visit);
            }
        }
    }
}
