package dev.arbor.studio.definitions.checks;

import static dev.arbor.studio.definitions.checks.DefinitionPass.eachString;
import static dev.arbor.studio.definitions.checks.DefinitionPass.isAbsent;
import static dev.arbor.studio.definitions.checks.DefinitionPass.parseNumber;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.MAX_OPTION_NAME;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.MAX_QUESTIONS;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.NODES;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.QUESTION_KEY;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Placeholders;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.definitions.VariableType;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The checks of questions: keys, types, instructions and criteria (options, levels, values, yes/no sides, or an
 * options variable), with the option limits of each type.
 */
final class QuestionRules {
    private final DefinitionPass pass;

    QuestionRules(DefinitionPass pass) {
        this.pass = pass;
    }

    ObjectNode questions(JsonNode node, String root) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            pass.problems.add(ErrorCode.MISSING_FIELD, root, "`" + root + "` is required: at least one question.");
            return normal;
        }
        if (!node.isObject()) {
            pass.invalid(root, "must be an object of question key to question");
            return normal;
        }
        if (node.isEmpty() || node.size() > MAX_QUESTIONS) {
            pass.invalid(root, "must hold 1 to " + MAX_QUESTIONS + " questions, not " + node.size());
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key(root, key);
            if (!QUESTION_KEY.matcher(key).matches()) {
                pass.invalid(
                        param,
                        "is not a valid question key: use letters, digits and _, not starting with a digit, "
                                + "at most 64 characters");
                continue;
            }
            question(key, param, entry.getValue()).ifPresent(question -> normal.set(key, question));
        }
        return normal;
    }

    private Optional<ObjectNode> question(String key, String param, JsonNode node) {
        Optional<QuestionType> parsed = pass.type(node, param, QuestionType::parse, QuestionType.names());
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        QuestionType type = parsed.get();
        pass.questionTypes.put(key, type);
        Set<String> allowed = new HashSet<>(List.of("type", "instructions", "criteria"));
        if (type == QuestionType.MULTI) {
            allowed.add("threshold");
        }
        if (type == QuestionType.NUMBER) {
            allowed.add("unit");
        }
        for (var names = node.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!allowed.contains(field)) {
                pass.invalid(ParamPath.key(param, field), "is not a field of a " + type.wire() + " question");
            }
        }
        ObjectNode normal = Json.object();
        normal.put("type", type.wire());
        JsonNode instructions = node.get("instructions");
        if (isAbsent(instructions)) {
            normal.put("instructions", type.defaultInstructions());
        } else {
            eachString(instructions, param + ".instructions", pass::questionText);
            normal.set("instructions", instructions);
        }
        normal.set("criteria", criteria(type, param + ".criteria", node.get("criteria")));
        if (type == QuestionType.MULTI) {
            JsonNode threshold = node.get("threshold");
            if (isAbsent(threshold)) {
                normal.put("threshold", 0.5);
            } else if (!threshold.isNumber() || threshold.doubleValue() <= 0 || threshold.doubleValue() >= 1) {
                pass.invalid(param + ".threshold", "must be a number between 0 and 1 (exclusive)");
            } else {
                normal.set("threshold", threshold);
            }
        }
        if (type == QuestionType.NUMBER) {
            pass.text(node, "unit", param, 50).ifPresent(unit -> normal.put("unit", unit));
        }
        return Optional.of(normal);
    }

    private JsonNode criteria(QuestionType type, String param, JsonNode node) {
        if (isAbsent(node)) {
            if (type == QuestionType.NOUL) {
                return Json.object();
            }
            pass.problems.add(
                    ErrorCode.MISSING_FIELD, param, "`" + param + "` is required for a " + type.wire() + " question.");
            return NullNode.getInstance();
        }
        if (node.isTextual() && pass.placeholders) {
            return optionsVariable(type, param, node.textValue());
        }
        return switch (type) {
            case NOUL -> noulCriteria(param, node);
            case SCORE -> levels(param, node);
            case NUMBER -> numberValues(param, node);
            case CHOICE, MULTI, RANK -> namedOptions(type, param, node);
        };
    }

    private JsonNode optionsVariable(QuestionType type, String param, String text) {
        Optional<String> name = Placeholders.whole(text);
        if (name.isEmpty()) {
            pass.invalid(
                    param, "must be a list or an object of options, or \"{{variable}}\" naming an options variable");
            return NullNode.getInstance();
        }
        if (!type.takesOptionsVariable()) {
            pass.problems.add(
                    ErrorCode.PLACEHOLDER_NOT_ALLOWED,
                    param,
                    "The options of a " + type.wire()
                            + " question are fixed in the template; only choice, multi and rank questions take their "
                            + "options from a variable.");
            return NullNode.getInstance();
        }
        Variable variable = pass.declared(name.get(), param);
        if (variable == null) {
            return NullNode.getInstance();
        }
        if (variable.type() != VariableType.OPTIONS) {
            pass.problems.add(
                    ErrorCode.INVALID_DEFINITION,
                    param,
                    "`" + name.get() + "` is a " + variable.type().wire()
                            + " variable; only an options variable can supply the options of a question.");
            return NullNode.getInstance();
        }
        pass.boundToCriteria.add(name.get());
        return NODES.textNode("{{" + name.get() + "}}");
    }

    private JsonNode noulCriteria(String param, JsonNode node) {
        if (!node.isObject()) {
            pass.invalid(param, "must be an object describing `true` and/or `false`");
            return Json.object();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String side = entry.getKey();
            String sideParam = ParamPath.key(param, side);
            if (!side.equals("true") && !side.equals("false")) {
                pass.invalid(sideParam, "is not a side of a yes/no question: use `true` and `false`");
                continue;
            }
            eachString(entry.getValue(), sideParam, pass::questionText);
            normal.set(side, entry.getValue());
        }
        return normal;
    }

    private JsonNode levels(String param, JsonNode node) {
        if (!node.isArray()) {
            pass.invalid(param, "must be a list of level descriptions, lowest first");
            return NODES.arrayNode();
        }
        checkCount(QuestionType.SCORE, param, node.size());
        for (int i = 0; i < node.size(); i++) {
            eachString(node.get(i), ParamPath.index(param, i), pass::questionText);
        }
        return node;
    }

    private JsonNode numberValues(String param, JsonNode node) {
        var values = new TreeMap<BigDecimal, JsonNode>();
        int rejected = 0;
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                String itemParam = ParamPath.index(param, i);
                if (pass.placeholders
                        && item.isTextual()
                        && !Placeholders.names(item.textValue()).isEmpty()) {
                    placeholderInName(itemParam);
                    rejected++;
                } else if (!item.isNumber() || !Double.isFinite(item.doubleValue())) {
                    pass.invalid(itemParam, "must be a finite number");
                    rejected++;
                } else {
                    values.putIfAbsent(item.decimalValue().stripTrailingZeros(), NullNode.getInstance());
                }
            }
        } else if (node.isObject()) {
            for (var entries = node.properties().iterator(); entries.hasNext(); ) {
                var entry = entries.next();
                String keyParam = ParamPath.key(param, entry.getKey());
                if (pass.placeholders && !Placeholders.names(entry.getKey()).isEmpty()) {
                    placeholderInName(keyParam);
                    rejected++;
                    continue;
                }
                Optional<BigDecimal> value = parseNumber(entry.getKey());
                if (value.isEmpty()) {
                    pass.invalid(keyParam, "is not a number: the keys of a number question are its values");
                    rejected++;
                    continue;
                }
                eachString(entry.getValue(), keyParam, pass::questionText);
                values.putIfAbsent(value.get(), entry.getValue());
            }
        } else {
            pass.invalid(param, "must be a list of numbers or an object of number to description");
            return Json.object();
        }
        if (rejected == 0) {
            checkCount(QuestionType.NUMBER, param, values.size());
        }
        ObjectNode normal = Json.object();
        values.forEach((value, description) -> normal.set(value.toPlainString(), description));
        return normal;
    }

    private JsonNode namedOptions(QuestionType type, String param, JsonNode node) {
        ObjectNode normal = Json.object();
        int rejected = 0;
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                JsonNode item = node.get(i);
                String itemParam = ParamPath.index(param, i);
                if (!item.isTextual()
                        || item.textValue().isBlank()
                        || item.textValue().length() > MAX_OPTION_NAME) {
                    pass.invalid(itemParam, "must be an option name of 1 to " + MAX_OPTION_NAME + " characters");
                    rejected++;
                } else if (pass.placeholders
                        && !Placeholders.names(item.textValue()).isEmpty()) {
                    placeholderInName(itemParam);
                    rejected++;
                } else if (normal.has(item.textValue())) {
                    pass.invalid(itemParam, "repeats the option \"" + item.textValue() + "\"");
                    rejected++;
                } else {
                    normal.set(item.textValue(), NullNode.getInstance());
                }
            }
        } else if (node.isObject()) {
            for (var entries = node.properties().iterator(); entries.hasNext(); ) {
                var entry = entries.next();
                String name = entry.getKey();
                String optionParam = ParamPath.key(param, name);
                if (name.isBlank() || name.length() > MAX_OPTION_NAME) {
                    pass.invalid(optionParam, "must be an option name of 1 to " + MAX_OPTION_NAME + " characters");
                    rejected++;
                } else if (pass.placeholders && !Placeholders.names(name).isEmpty()) {
                    placeholderInName(optionParam);
                    rejected++;
                } else {
                    eachString(entry.getValue(), optionParam, pass::questionText);
                    normal.set(name, entry.getValue());
                }
            }
        } else {
            pass.invalid(param, "must be a list of option names or an object of name to description");
            return normal;
        }
        if (rejected == 0) {
            checkCount(type, param, normal.size());
        }
        return normal;
    }

    private void checkCount(QuestionType type, String param, int count) {
        if (count < type.minOptions() || count > type.maxOptions()) {
            String what =
                    type == QuestionType.SCORE ? "levels" : type == QuestionType.NUMBER ? "distinct values" : "options";
            pass.invalid(
                    param,
                    "has " + count + " " + what + "; a " + type.wire() + " question takes " + type.minOptions() + " to "
                            + type.maxOptions());
        }
    }

    private void placeholderInName(String param) {
        pass.problems.add(
                ErrorCode.PLACEHOLDER_NOT_ALLOWED,
                param,
                "`" + param + "` is an option name or value, which "
                        + "must be fixed in the template; put variable text in its description instead.");
    }
}
