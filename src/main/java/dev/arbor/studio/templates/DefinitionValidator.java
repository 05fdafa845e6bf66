package dev.arbor.studio.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problems;
import dev.arbor.platform.http.Warning;
import dev.arbor.platform.http.WarningCode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Checks a template definition and brings it to its normal form, reporting every problem of the pass. The normal
 * form is what is stored, hashed and compared between versions: the seven definition fields in a fixed order, with
 * every default written out.
 */
final class DefinitionValidator {
    static final Pattern VARIABLE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,63}");
    static final Pattern QUESTION_KEY = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,63}");
    static final int MAX_VARIABLES = 64;
    static final int MAX_QUESTIONS = 128;
    static final int MAX_OPTION_NAME = 200;
    static final int DEFAULT_MAX_EXTRA_QUESTIONS = 16;
    static final List<String> MODALITIES = List.of("text", "image", "audio", "video");
    private static final Set<String> SETTINGS_KEYS = Set.of("act_threshold", "temperature", "multi_threshold");
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Problems problems;
    private final List<Warning> warnings = new ArrayList<>();
    private final Map<String, Variable> variables = new LinkedHashMap<>();
    private final Set<String> referenced = new HashSet<>();
    private final Set<String> boundToCriteria = new HashSet<>();
    private final Map<String, QuestionType> questionTypes = new LinkedHashMap<>();
    private final Set<String> knownModels;
    /** Off for questions sent without a template, whose text is taken as it is. */
    private boolean placeholders = true;

    private DefinitionValidator(Problems problems, Set<String> knownModels) {
        this.problems = problems;
        this.knownModels = knownModels;
    }

    /**
     * Checks questions sent with a decision and brings them to the normal form: extra questions may use the
     * template's variables in their text, by the template's rules; questions of a decision without a template
     * ({@code template} null) are read literally.
     */
    static ObjectNode decisionQuestions(JsonNode node, String root, JsonNode template, Problems problems) {
        var validator = new DefinitionValidator(problems, Set.of());
        if (template == null) {
            validator.placeholders = false;
        } else {
            template.path("variables")
                    .properties()
                    .forEach(e -> validator.variables.put(
                            e.getKey(),
                            new Variable(
                                    e.getKey(),
                                    VariableType.parse(e.getValue().path("type").asText())
                                            .orElseThrow(),
                                    (ObjectNode) e.getValue())));
        }
        return validator.questions(node, root);
    }

    /**
     * Checks the {@code settings} of a decision: the template's setting rules, without per-model settings.
     *
     * @param questionTypes the type of each question the decision asks, by key
     */
    static ObjectNode decisionSettings(JsonNode node, Map<String, String> questionTypes, Problems problems) {
        var validator = new DefinitionValidator(problems, Set.of());
        questionTypes.forEach((key, type) ->
                validator.questionTypes.put(key, QuestionType.parse(type).orElseThrow()));
        if (node != null && node.isObject() && node.has("models")) {
            validator.invalid("settings.models", "is set per template, not per decision");
            ObjectNode rest = ((ObjectNode) node).deepCopy();
            rest.remove("models");
            return validator.settings(rest);
        }
        return validator.settings(node);
    }

    /** The raw definition fields of a request, each null when absent. */
    record Fields(
            JsonNode modalities,
            JsonNode variables,
            JsonNode state,
            JsonNode questions,
            JsonNode model,
            JsonNode settings,
            JsonNode extensions) {}

    /** The normal form and the warnings; meaningful only when {@code problems} stayed empty. */
    record Result(ObjectNode definition, List<Warning> warnings) {}

    /** @param knownModels the registry's model ids, which {@code model} and {@code settings.models} may name */
    static Result validate(Fields fields, Problems problems, Set<String> knownModels) {
        var validator = new DefinitionValidator(problems, knownModels);
        ObjectNode definition = validator.run(fields);
        return new Result(definition, List.copyOf(validator.warnings));
    }

    private ObjectNode run(Fields fields) {
        ObjectNode normalVariables = variables(fields.variables());
        ArrayNode modalities = modalities(fields.modalities());
        JsonNode state = state(fields.state());
        ObjectNode questions = questions(fields.questions(), "questions");
        JsonNode model = model(fields.model());
        ObjectNode settings = settings(fields.settings());
        ObjectNode extensions = extensions(fields.extensions());
        warnUnreferenced(state);

        ObjectNode definition = Json.object();
        definition.set("modalities", modalities);
        definition.set("variables", normalVariables);
        definition.set("state", state);
        definition.set("questions", questions);
        definition.set("model", model);
        definition.set("settings", settings);
        definition.set("extensions", extensions);
        return definition;
    }

    // ---- variables

    private ObjectNode variables(JsonNode node) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            invalid("variables", "must be an object of variable name to spec");
            return normal;
        }
        if (node.size() > MAX_VARIABLES) {
            invalid("variables", "declares " + node.size() + " variables; at most " + MAX_VARIABLES + " are allowed");
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String name = entry.getKey();
            String param = ParamPath.key("variables", name);
            if (!VARIABLE_NAME.matcher(name).matches()) {
                invalid(
                        param,
                        "is not a valid variable name: use a-z, 0-9 and _, starting with a letter or _, "
                                + "at most 64 characters");
                continue;
            }
            variable(name, param, entry.getValue()).ifPresent(variable -> {
                variables.put(name, variable);
                normal.set(name, variable.spec());
            });
        }
        return normal;
    }

    private Optional<Variable> variable(String name, String param, JsonNode node) {
        Optional<VariableType> parsed = type(node, param, VariableType::parse, VariableType.names());
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        // A variable with a bad setting is still declared, so that its uses do not report it as undeclared.
        VariableType type = parsed.get();
        for (var names = node.fieldNames(); names.hasNext(); ) {
            String key = names.next();
            if (!VariableType.COMMON_KEYS.contains(key) && !type.constraints().contains(key)) {
                invalid(
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
        text(node, "description", param, 2000).ifPresent(d -> spec.put("description", d));
        constraints(type, node, param, spec);
        boolean sensitive = flag(node, "sensitive", param, false);
        boolean trusted = flag(node, "trusted", param, false);
        if (sensitive && trusted) {
            invalid(
                    param + ".trusted",
                    "cannot be true for a sensitive variable: sensitive values never go into " + "question text");
        }
        JsonNode defaultValue = node.get("default");
        boolean hasDefault = !isAbsent(defaultValue);
        boolean required = flag(node, "required", param, !hasDefault);
        var variable = new Variable(name, type, spec);
        if (hasDefault) {
            variable.problemWith(defaultValue)
                    .ifPresent(why -> invalid(param + ".default", "is not valid: the default " + why));
            spec.set("default", defaultValue);
        }
        JsonNode example = node.get("example");
        if (!isAbsent(example)) {
            variable.problemWith(example)
                    .ifPresent(why -> invalid(param + ".example", "is not valid: the example " + why));
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
                count(node, "min_length", param, Variable.MAX_LENGTH).ifPresent(v -> spec.put("min_length", v));
                count(node, "max_length", param, Variable.MAX_LENGTH).ifPresent(v -> spec.put("max_length", v));
                text(node, "pattern", param, 1000).ifPresent(pattern -> {
                    if (Variable.validPattern(pattern)) {
                        spec.put("pattern", pattern);
                    } else {
                        invalid(param + ".pattern", "is not a valid regular expression");
                    }
                });
                JsonNode values = node.get("enum");
                if (!isAbsent(values)) {
                    if (!values.isArray() || values.isEmpty() || !allMatch(values, JsonNode::isTextual)) {
                        invalid(param + ".enum", "must be a non-empty list of strings");
                    } else {
                        spec.set("enum", values);
                    }
                }
                text(node, "format", param, 20).ifPresent(format -> {
                    if (format.equals("date") || format.equals("date-time")) {
                        spec.put("format", format);
                    } else {
                        invalid(param + ".format", "must be `date` or `date-time`");
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
                        invalid(ParamPath.key(param, key), "must be a number");
                    } else {
                        spec.set(key, bound);
                    }
                }
                if (spec.has("minimum")
                        && spec.has("maximum")
                        && spec.get("minimum").doubleValue()
                                > spec.get("maximum").doubleValue()) {
                    invalid(param + ".minimum", "is above the maximum");
                }
                JsonNode values = node.get("enum");
                if (type == VariableType.INTEGER && !isAbsent(values)) {
                    if (!values.isArray()
                            || values.isEmpty()
                            || !allMatch(values, v -> v.isIntegralNumber() && v.canConvertToLong())) {
                        invalid(param + ".enum", "must be a non-empty list of integers");
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
                        invalid(param + ".schema", "must be a JSON Schema object");
                    }
                }
                count(node, "max_bytes", param, Integer.MAX_VALUE).ifPresent(v -> spec.put("max_bytes", v));
            }
            case OPTIONS -> {
                count(node, "min_items", param, 1000).ifPresent(v -> spec.put("min_items", v));
                count(node, "max_items", param, 1000).ifPresent(v -> spec.put("max_items", v));
            }
            case IMAGE, AUDIO, VIDEO ->
                count(node, "max_bytes", param, Integer.MAX_VALUE).ifPresent(v -> spec.put("max_bytes", v));
            case BOOLEAN -> {
                // no constraints
            }
        }
    }

    // ---- modalities

    private ArrayNode modalities(JsonNode node) {
        var chosen = new LinkedHashSet<String>();
        chosen.add("text");
        if (isAbsent(node)) {
            variables.values().stream()
                    .filter(v -> v.type().isMedia())
                    .forEach(v -> chosen.add(v.type().wire()));
            return strings(chosen);
        }
        if (!node.isArray()) {
            invalid("modalities", "must be a list of " + String.join(", ", MODALITIES));
            return strings(chosen);
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode item = node.get(i);
            if (item.isTextual() && MODALITIES.contains(item.textValue())) {
                chosen.add(item.textValue());
            } else {
                invalid(ParamPath.index("modalities", i), "must be one of " + String.join(", ", MODALITIES));
            }
        }
        for (Variable variable : variables.values()) {
            if (variable.type().isMedia() && !chosen.contains(variable.type().wire())) {
                String param = ParamPath.key("variables", variable.name());
                problems.add(
                        ErrorCode.MODALITY_NOT_DECLARED,
                        param,
                        "`" + param + "` is a " + variable.type().wire() + " variable, but `modalities` does not list "
                                + variable.type().wire() + ".");
            }
        }
        return strings(chosen);
    }

    // ---- state

    private JsonNode state(JsonNode node) {
        if (isAbsent(node)) {
            return NullNode.getInstance();
        }
        if (!(node.isTextual() || node.isObject() || node.isArray())) {
            invalid("state", "must be text, an object, a list or null");
            return NullNode.getInstance();
        }
        if (variables.isEmpty()) {
            problems.add(
                    ErrorCode.INVALID_DEFINITION,
                    "state",
                    "A state template needs variables to fill it; "
                            + "without variables, send `state` with each decision instead.");
            return node;
        }
        eachString(node, "state", (text, param) -> {
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
                                    + "only supply the whole `criteria` of a choice, multi or rank question, not text.");
                } else {
                    referenced.add(name);
                }
            }
        });
        return node;
    }

    // ---- questions

    private ObjectNode questions(JsonNode node, String root) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            problems.add(ErrorCode.MISSING_FIELD, root, "`" + root + "` is required: at least one question.");
            return normal;
        }
        if (!node.isObject()) {
            invalid(root, "must be an object of question key to question");
            return normal;
        }
        if (node.isEmpty() || node.size() > MAX_QUESTIONS) {
            invalid(root, "must hold 1 to " + MAX_QUESTIONS + " questions, not " + node.size());
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key(root, key);
            if (!QUESTION_KEY.matcher(key).matches()) {
                invalid(
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
        Optional<QuestionType> parsed = type(node, param, QuestionType::parse, QuestionType.names());
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        QuestionType type = parsed.get();
        questionTypes.put(key, type);
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
                invalid(ParamPath.key(param, field), "is not a field of a " + type.wire() + " question");
            }
        }
        ObjectNode normal = Json.object();
        normal.put("type", type.wire());
        JsonNode instructions = node.get("instructions");
        if (isAbsent(instructions)) {
            normal.put("instructions", type.defaultInstructions());
        } else {
            eachString(instructions, param + ".instructions", this::questionText);
            normal.set("instructions", instructions);
        }
        normal.set("criteria", criteria(type, param + ".criteria", node.get("criteria")));
        if (type == QuestionType.MULTI) {
            JsonNode threshold = node.get("threshold");
            if (isAbsent(threshold)) {
                normal.put("threshold", 0.5);
            } else if (!threshold.isNumber() || threshold.doubleValue() <= 0 || threshold.doubleValue() >= 1) {
                invalid(param + ".threshold", "must be a number between 0 and 1 (exclusive)");
            } else {
                normal.set("threshold", threshold);
            }
        }
        if (type == QuestionType.NUMBER) {
            text(node, "unit", param, 50).ifPresent(unit -> normal.put("unit", unit));
        }
        return Optional.of(normal);
    }

    private JsonNode criteria(QuestionType type, String param, JsonNode node) {
        if (isAbsent(node)) {
            if (type == QuestionType.NOUL) {
                return Json.object();
            }
            problems.add(
                    ErrorCode.MISSING_FIELD, param, "`" + param + "` is required for a " + type.wire() + " question.");
            return NullNode.getInstance();
        }
        if (node.isTextual() && placeholders) {
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
            invalid(param, "must be a list or an object of options, or \"{{variable}}\" naming an options variable");
            return NullNode.getInstance();
        }
        if (!type.takesOptionsVariable()) {
            problems.add(
                    ErrorCode.PLACEHOLDER_NOT_ALLOWED,
                    param,
                    "The options of a " + type.wire()
                            + " question are fixed in the template; only choice, multi and rank questions take their "
                            + "options from a variable.");
            return NullNode.getInstance();
        }
        Variable variable = declared(name.get(), param);
        if (variable == null) {
            return NullNode.getInstance();
        }
        if (variable.type() != VariableType.OPTIONS) {
            problems.add(
                    ErrorCode.INVALID_DEFINITION,
                    param,
                    "`" + name.get() + "` is a " + variable.type().wire()
                            + " variable; only an options variable can supply the options of a question.");
            return NullNode.getInstance();
        }
        boundToCriteria.add(name.get());
        return NODES.textNode("{{" + name.get() + "}}");
    }

    private JsonNode noulCriteria(String param, JsonNode node) {
        if (!node.isObject()) {
            invalid(param, "must be an object describing `true` and/or `false`");
            return Json.object();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String side = entry.getKey();
            String sideParam = ParamPath.key(param, side);
            if (!side.equals("true") && !side.equals("false")) {
                invalid(sideParam, "is not a side of a yes/no question: use `true` and `false`");
                continue;
            }
            eachString(entry.getValue(), sideParam, this::questionText);
            normal.set(side, entry.getValue());
        }
        return normal;
    }

    private JsonNode levels(String param, JsonNode node) {
        if (!node.isArray()) {
            invalid(param, "must be a list of level descriptions, lowest first");
            return NODES.arrayNode();
        }
        checkCount(QuestionType.SCORE, param, node.size());
        for (int i = 0; i < node.size(); i++) {
            eachString(node.get(i), ParamPath.index(param, i), this::questionText);
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
                if (placeholders
                        && item.isTextual()
                        && !Placeholders.names(item.textValue()).isEmpty()) {
                    placeholderInName(itemParam);
                    rejected++;
                } else if (!item.isNumber() || !Double.isFinite(item.doubleValue())) {
                    invalid(itemParam, "must be a finite number");
                    rejected++;
                } else {
                    values.putIfAbsent(item.decimalValue().stripTrailingZeros(), NullNode.getInstance());
                }
            }
        } else if (node.isObject()) {
            for (var entries = node.properties().iterator(); entries.hasNext(); ) {
                var entry = entries.next();
                String keyParam = ParamPath.key(param, entry.getKey());
                if (placeholders && !Placeholders.names(entry.getKey()).isEmpty()) {
                    placeholderInName(keyParam);
                    rejected++;
                    continue;
                }
                Optional<BigDecimal> value = parseNumber(entry.getKey());
                if (value.isEmpty()) {
                    invalid(keyParam, "is not a number: the keys of a number question are its values");
                    rejected++;
                    continue;
                }
                eachString(entry.getValue(), keyParam, this::questionText);
                values.putIfAbsent(value.get(), entry.getValue());
            }
        } else {
            invalid(param, "must be a list of numbers or an object of number to description");
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
                    invalid(itemParam, "must be an option name of 1 to " + MAX_OPTION_NAME + " characters");
                    rejected++;
                } else if (placeholders && !Placeholders.names(item.textValue()).isEmpty()) {
                    placeholderInName(itemParam);
                    rejected++;
                } else if (normal.has(item.textValue())) {
                    invalid(itemParam, "repeats the option \"" + item.textValue() + "\"");
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
                    invalid(optionParam, "must be an option name of 1 to " + MAX_OPTION_NAME + " characters");
                    rejected++;
                } else if (placeholders && !Placeholders.names(name).isEmpty()) {
                    placeholderInName(optionParam);
                    rejected++;
                } else {
                    eachString(entry.getValue(), optionParam, this::questionText);
                    normal.set(name, entry.getValue());
                }
            }
        } else {
            invalid(param, "must be a list of option names or an object of name to description");
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
            invalid(
                    param,
                    "has " + count + " " + what + "; a " + type.wire() + " question takes " + type.minOptions() + " to "
                            + type.maxOptions());
        }
    }

    private void placeholderInName(String param) {
        problems.add(
                ErrorCode.PLACEHOLDER_NOT_ALLOWED,
                param,
                "`" + param + "` is an option name or value, which "
                        + "must be fixed in the template; put variable text in its description instead.");
    }

    /** The rules for variable text in what the model reads as the question (kept in history as asked). */
    private void questionText(String text, String param) {
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

    private void mediaInText(Variable variable, String param) {
        problems.add(
                ErrorCode.MEDIA_VARIABLE_IN_TEXT,
                param,
                "`" + variable.name() + "` is a " + variable.type().wire()
                        + " variable: it is attached as media, it cannot stand in text.");
    }

    private Variable declared(String name, String param) {
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

    // ---- model, settings, extensions

    private JsonNode model(JsonNode node) {
        if (isAbsent(node)) {
            return NullNode.getInstance();
        }
        if (!node.isTextual() || node.textValue().isBlank() || node.textValue().length() > 200) {
            invalid("model", "must be a model id or null");
            return NullNode.getInstance();
        }
        if (!knownModels.contains(node.textValue())) {
            invalid(
                    "model",
                    "names no model of the registry" + knownModelList()
                            + Placeholders.didYouMean(node.textValue(), knownModels));
        }
        return node;
    }

    private ObjectNode settings(JsonNode node) {
        ObjectNode normal = Json.object();
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            invalid("settings", "must be an object");
            return normal;
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key("settings", key);
            switch (key) {
                case "questions" -> perQuestion(param, entry.getValue()).ifPresent(v -> normal.set(key, v));
                case "models" -> perModel(param, entry.getValue()).ifPresent(v -> normal.set(key, v));
                default -> setting(param, key, entry.getValue(), null).ifPresent(v -> normal.set(key, v));
            }
        }
        return normal;
    }

    private Optional<JsonNode> setting(String param, String key, JsonNode value, QuestionType questionType) {
        if (!SETTINGS_KEYS.contains(key)) {
            invalid(param, "is not a setting (settings: act_threshold, temperature, multi_threshold)");
            return Optional.empty();
        }
        if (value.isNull()) {
            return Optional.empty();
        }
        SettingRange range = SettingRange.of(key).orElseThrow();
        if (!range.contains(value)) {
            invalid(param, range.refusal());
            return Optional.empty();
        }
        if (key.equals("multi_threshold") && questionType != null && questionType != QuestionType.MULTI) {
            invalid(param, "applies only to multi questions");
            return Optional.empty();
        }
        return Optional.of(value);
    }

    private Optional<JsonNode> perQuestion(String param, JsonNode node) {
        if (!node.isObject()) {
            invalid(param, "must be an object of question key to settings");
            return Optional.empty();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String questionParam = ParamPath.key(param, key);
            QuestionType type = questionTypes.get(key);
            if (type == null) {
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        questionParam,
                        "`" + key + "` is not a question of this " + "template."
                                + Placeholders.didYouMean(key, questionTypes.keySet()));
                continue;
            }
            if (!entry.getValue().isObject()) {
                invalid(questionParam, "must be an object of settings");
                continue;
            }
            ObjectNode values = Json.object();
            for (var settings = entry.getValue().properties().iterator(); settings.hasNext(); ) {
                var setting = settings.next();
                setting(ParamPath.key(questionParam, setting.getKey()), setting.getKey(), setting.getValue(), type)
                        .ifPresent(v -> values.set(setting.getKey(), v));
            }
            normal.set(key, values);
        }
        return Optional.of(normal);
    }

    private Optional<JsonNode> perModel(String param, JsonNode node) {
        if (!node.isObject()) {
            invalid(param, "must be an object of model id to settings");
            return Optional.empty();
        }
        ObjectNode normal = Json.object();
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String modelParam = ParamPath.key(param, entry.getKey());
            if (!knownModels.contains(entry.getKey())) {
                invalid(modelParam, "names no model of the registry" + knownModelList());
                continue;
            }
            if (!entry.getValue().isObject()) {
                invalid(modelParam, "must be an object of settings for that model");
                continue;
            }
            ObjectNode values = Json.object();
            for (var settings = entry.getValue().properties().iterator(); settings.hasNext(); ) {
                var setting = settings.next();
                String settingParam = ParamPath.key(modelParam, setting.getKey());
                if (setting.getKey().equals("questions")) {
                    perQuestion(settingParam, setting.getValue()).ifPresent(v -> values.set("questions", v));
                } else {
                    setting(settingParam, setting.getKey(), setting.getValue(), null)
                            .ifPresent(v -> values.set(setting.getKey(), v));
                }
            }
            normal.set(entry.getKey(), values);
        }
        return Optional.of(normal);
    }

    private ObjectNode extensions(JsonNode node) {
        ObjectNode normal = Json.object();
        normal.put("questions", true);
        normal.put("max_questions", DEFAULT_MAX_EXTRA_QUESTIONS);
        normal.set("options", NODES.arrayNode());
        normal.set("skip", NODES.arrayNode());
        if (isAbsent(node)) {
            return normal;
        }
        if (!node.isObject()) {
            invalid("extensions", "must be an object");
            return normal;
        }
        for (var entries = node.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            String key = entry.getKey();
            String param = ParamPath.key("extensions", key);
            JsonNode value = entry.getValue();
            switch (key) {
                case "questions" -> {
                    if (value.isBoolean()) {
                        normal.set(key, value);
                    } else {
                        invalid(param, "must be true or false");
                    }
                }
                case "max_questions" -> {
                    if (value.isIntegralNumber() && value.asLong() >= 0 && value.asLong() <= MAX_QUESTIONS) {
                        normal.put(key, value.asInt());
                    } else {
                        invalid(param, "must be an integer from 0 to " + MAX_QUESTIONS);
                    }
                }
                case "options", "skip" ->
                    questionList(param, value, key.equals("options")).ifPresent(list -> normal.set(key, list));
                default ->
                    invalid(
                            param,
                            "is not an extension setting (settings: questions, max_questions, " + "options, skip)");
            }
        }
        return normal;
    }

    private Optional<JsonNode> questionList(String param, JsonNode value, boolean options) {
        if (value.isBoolean() && value.booleanValue()) {
            return Optional.of(value); // every question that can take it
        }
        if (!value.isArray()) {
            invalid(param, "must be true or a list of question keys");
            return Optional.empty();
        }
        var keys = new LinkedHashSet<String>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String itemParam = ParamPath.index(param, i);
            if (!item.isTextual()) {
                invalid(itemParam, "must be a question key");
                continue;
            }
            QuestionType type = questionTypes.get(item.textValue());
            if (type == null) {
                problems.add(
                        ErrorCode.UNKNOWN_QUESTION,
                        itemParam,
                        "`" + item.textValue() + "` is not a question " + "of this template."
                                + Placeholders.didYouMean(item.textValue(), questionTypes.keySet()));
            } else if (options && !type.extensible()) {
                problems.add(
                        ErrorCode.OPTIONS_NOT_EXTENSIBLE,
                        itemParam,
                        "`" + item.textValue() + "` is a "
                                + type.wire() + " question; its options are fixed (only choice, multi, rank and number "
                                + "questions take new options).");
            } else {
                keys.add(item.textValue());
            }
        }
        return Optional.of(strings(keys));
    }

    // ---- warnings

    private void warnUnreferenced(JsonNode state) {
        for (Variable variable : variables.values()) {
            String param = ParamPath.key("variables", variable.name());
            if (variable.type() == VariableType.OPTIONS) {
                if (!boundToCriteria.contains(variable.name())) {
                    warnings.add(new Warning(
                            WarningCode.VARIABLE_UNREFERENCED,
                            "`" + variable.name() + "` is an "
                                    + "options variable that no question takes its criteria from.",
                            param));
                }
            } else if (!variable.type().isMedia() && !state.isNull() && !referenced.contains(variable.name())) {
                warnings.add(new Warning(
                        WarningCode.VARIABLE_UNREFERENCED,
                        "`" + variable.name() + "` is not used "
                                + "in the state or the questions, so its value never reaches the model.",
                        param));
            }
        }
    }

    // ---- helpers

    /** The {@code type} of a variable or question object, or a problem saying what it may be. */
    private <T> Optional<T> type(
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

    private String knownModelList() {
        return knownModels.isEmpty()
                ? " (there are none)"
                : " (models: " + String.join(", ", new java.util.TreeSet<>(knownModels)) + ")";
    }

    private void invalid(String param, String why) {
        problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }

    private Optional<String> text(JsonNode node, String key, String param, int max) {
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

    private Optional<Integer> count(JsonNode node, String key, String param, int max) {
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

    private boolean flag(JsonNode node, String key, String param, boolean fallback) {
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

    private static boolean isAbsent(JsonNode node) {
        return node == null || node.isNull() || node.isMissingNode();
    }

    private static boolean allMatch(JsonNode array, java.util.function.Predicate<JsonNode> test) {
        for (JsonNode item : array) {
            if (!test.test(item)) {
                return false;
            }
        }
        return true;
    }

    private static ArrayNode strings(Iterable<String> values) {
        ArrayNode array = NODES.arrayNode();
        values.forEach(array::add);
        return array;
    }

    private static Optional<BigDecimal> parseNumber(String text) {
        try {
            BigDecimal value = new BigDecimal(text.trim());
            return Double.isFinite(value.doubleValue()) ? Optional.of(value.stripTrailingZeros()) : Optional.empty();
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Calls {@code visit} with every string inside a JSON value (object values, not keys) and its param. */
    private static void eachString(JsonNode node, String param, java.util.function.BiConsumer<String, String> visit) {
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
