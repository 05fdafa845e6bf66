package dev.arbor.studio.definitions.checks;

import static dev.arbor.studio.definitions.checks.DefinitionPass.allMatch;
import static dev.arbor.studio.definitions.checks.DefinitionPass.isAbsent;
import static dev.arbor.studio.definitions.checks.DefinitionPass.strings;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.MAX_VARIABLES;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.MODALITIES;
import static dev.arbor.studio.definitions.checks.DefinitionValidator.VARIABLE_NAME;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.patterns.UserPatterns;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.definitions.VariableType;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;

/** The checks of a definition's variables and modalities, which the rest of the definition refers to. */
final class VariableRules {
    private final DefinitionPass pass;

    VariableRules(DefinitionPass pass) {
        this.pass = pass;
    }

    ObjectNode variables(JsonNode node) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            pass.invalid("variables", "must be an object of variable name to spec");
            return normal;
        }
        if (node.size() > MAX_VARIABLES) {
            pass.invalid(
                    "variables", "declares " + node.size() + " variables; at most " + MAX_VARIABLES + " are allowed");
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String name = entry.getKey();
            String param = ParamPath.key("variables", name);
            if (!VARIABLE_NAME.matcher(name).matches()) {
                pass.invalid(
                        param,
                        "is not a valid variable name: use a-z, 0-9 and _, starting with a letter or _, "
                                + "at most 64 characters");
                continue;
            }
            variable(name, param, entry.getValue()).ifPresent(variable -> {
                pass.variables.put(name, variable);
                normal.set(name, variable.spec());
            });
        }
        return normal;
    }

    private Optional<Variable> variable(String name, String param, JsonNode node) {
        Optional<VariableType> parsed = pass.type(node, param, VariableType::parse, VariableType.names());
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        // A variable with a bad setting is still declared, so that its uses do not report it as undeclared.
        VariableType type = parsed.get();
        for (var names = node.fieldNames(); names.hasNext(); ) {
            String key = names.next();
            if (!VariableType.COMMON_KEYS.contains(key) && !type.constraints().contains(key)) {
                pass.invalid(
                        ParamPath.key(param, key),
                        "is not a setting of a " + type.wire() + " variable"
                                + (type.constraints().isEmpty()
                                        ? ""
                                        : " (its settings: "
                                                + String.join(", ", new java.util.TreeSet<>(type.constraints()))
                                                + ")"));
            }
        }
        ObjectNode spec = Json.object();
        spec.put("type", type.wire());
        pass.text(node, "description", param, 2000).ifPresent(d -> spec.put("description", d));
        constraints(type, node, param, spec);
        boolean sensitive = pass.flag(node, "sensitive", param, false);
        boolean trusted = pass.flag(node, "trusted", param, false);
        if (sensitive && trusted) {
            pass.invalid(
                    param + ".trusted",
                    "cannot be true for a sensitive variable: sensitive values never go into " + "question text");
        }
        JsonNode defaultValue = node.get("default");
        boolean hasDefault = !isAbsent(defaultValue);
        boolean required = pass.flag(node, "required", param, !hasDefault);
        var variable = new Variable(name, type, spec);
        if (hasDefault) {
            variable.problemWith(defaultValue)
                    .ifPresent(why -> pass.invalid(param + ".default", "is not valid: the default " + why));
            spec.set("default", defaultValue);
        }
        JsonNode example = node.get("example");
        if (!isAbsent(example)) {
            variable.problemWith(example)
                    .ifPresent(why -> pass.invalid(param + ".example", "is not valid: the example " + why));
            spec.set("example", example);
        }
        spec.put("required", required);
        spec.put("sensitive", sensitive);
        spec.put("trusted", trusted);
        return Optional.of(variable);
    }

    private void constraints(VariableType type, JsonNode node, String param, ObjectNode spec) {
        switch (type) {
            case STRING -> {
                pass.count(node, "min_length", param, Variable.MAX_LENGTH).ifPresent(v -> spec.put("min_length", v));
                pass.count(node, "max_length", param, Variable.MAX_LENGTH).ifPresent(v -> spec.put("max_length", v));
                pass.text(node, "pattern", param, 1000)
                        .ifPresent(pattern -> UserPatterns.refusal(pattern)
                                .ifPresentOrElse(
                                        why -> pass.invalid(param + ".pattern", why),
                                        () -> spec.put("pattern", pattern)));
                JsonNode values = node.get("enum");
                if (!isAbsent(values)) {
                    if (!values.isArray() || values.isEmpty() || !allMatch(values, JsonNode::isTextual)) {
                        pass.invalid(param + ".enum", "must be a non-empty list of strings");
                    } else {
                        spec.set("enum", values);
                    }
                }
                pass.text(node, "format", param, 20).ifPresent(format -> {
                    if (format.equals("date") || format.equals("date-time")) {
                        spec.put("format", format);
                    } else {
                        pass.invalid(param + ".format", "must be `date` or `date-time`");
                    }
                });
            }
            case INTEGER, NUMBER -> {
                for (String key : List.of("minimum", "maximum")) {
                    JsonNode bound = node.get(key);
                    if (isAbsent(bound)) {
                        continue;
                    }
                    if (!bound.isNumber() || !Double.isFinite(bound.doubleValue())) {
                        pass.invalid(ParamPath.key(param, key), "must be a number");
                    } else {
                        spec.set(key, bound);
                    }
                }
                if (spec.has("minimum")
                        && spec.has("maximum")
                        && spec.get("minimum").doubleValue()
                                > spec.get("maximum").doubleValue()) {
                    pass.invalid(param + ".minimum", "is above the maximum");
                }
                JsonNode values = node.get("enum");
                if (type == VariableType.INTEGER && !isAbsent(values)) {
                    if (!values.isArray()
                            || values.isEmpty()
                            || !allMatch(values, v -> v.isIntegralNumber() && v.canConvertToLong())) {
                        pass.invalid(param + ".enum", "must be a non-empty list of integers");
                    } else {
                        spec.set("enum", values);
                    }
                }
            }
            case JSON -> {
                JsonNode schema = node.get("schema");
                if (!isAbsent(schema)) {
                    if (schema.isObject()) {
                        spec.set("schema", schema);
                    } else {
                        pass.invalid(param + ".schema", "must be a JSON Schema object");
                    }
                }
                pass.count(node, "max_bytes", param, Integer.MAX_VALUE).ifPresent(v -> spec.put("max_bytes", v));
            }
            case OPTIONS -> {
                pass.count(node, "min_items", param, 1000).ifPresent(v -> spec.put("min_items", v));
                pass.count(node, "max_items", param, 1000).ifPresent(v -> spec.put("max_items", v));
            }
            case IMAGE, AUDIO, VIDEO ->
                pass.count(node, "max_bytes", param, Integer.MAX_VALUE).ifPresent(v -> spec.put("max_bytes", v));
            case BOOLEAN -> {
                // no constraints
            }
        }
    }

    // ---- modalities

    ArrayNode modalities(JsonNode node) {
        var chosen = new LinkedHashSet<String>();
        chosen.add("text");
        if (isAbsent(node)) {
            pass.variables.values().stream()
                    .filter(v -> v.type().isMedia())
                    .forEach(v -> chosen.add(v.type().wire()));
            return strings(chosen);
        }
        if (!node.isArray()) {
            pass.invalid("modalities", "must be a list of " + String.join(", ", MODALITIES));
            return strings(chosen);
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (item.isTextual() && MODALITIES.contains(item.textValue())) {
                chosen.add(item.textValue());
            } else {
                pass.invalid(ParamPath.index("modalities", i), "must be one of " + String.join(", ", MODALITIES));
            }
        }
        for (Variable variable : pass.variables.values()) {
            if (variable.type().isMedia() && !chosen.contains(variable.type().wire())) {
                String param = ParamPath.key("variables", variable.name());
                pass.problems.add(
                        ErrorCode.MODALITY_NOT_DECLARED,
                        param,
                        "`" + param + "` is a " + variable.type().wire() + " variable, but `modalities` does not list "
                                + variable.type().wire() + ".");
            }
        }
        return strings(chosen);
    }
}
