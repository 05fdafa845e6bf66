package dev.arbor.pipelines;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problems;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.regex.Pattern;

/**
 * One parameter of an action: its type and the checks an editor runs before saving (required, ranges, lengths,
 * patterns, options) and when it applies ({@code visible_when}). A value that holds a {@code {{ }}} reference is
 * checked at run time, once it is known; only its references are checked before.
 */
record ParamSpec(
        String name,
        Type type,
        boolean required,
        Optional<JsonNode> defaultValue,
        String description,
        List<String> options,
        OptionalDouble min,
        OptionalDouble max,
        boolean integer,
        OptionalInt minLength,
        OptionalInt maxLength,
        Optional<Pattern> pattern,
        OptionalInt maxItems,
        Optional<Visibility> visibleWhen) {

    /** The contract's parameter types. */
    enum Type {
        STRING,
        NUMBER,
        BOOLEAN,
        SELECT,
        MULTISELECT,
        JSON,
        TEMPLATE,
        RANGE,
        MODEL_REF,
        CLUSTER_REF,
        PROJECT_REF,
        ENDPOINT_REF,
        ENDPOINT_REF_LIST,
        ENDPOINT_WEIGHTED_LIST,
        ENDPOINT_ORDERED_LIST,
        PROVIDER_REF,
        CREDENTIAL_REF,
        CLOUD_MODEL_REF,
        BRANCHES,
        CONTENT_RULE_LIST,
        STRING_LIST;

        String wire() {
            return name().toLowerCase(Locale.ROOT);
        }

        static Optional<Type> of(String wire) {
            for (Type type : values()) {
                if (type.wire().equals(wire)) {
                    return Optional.of(type);
                }
            }
            return Optional.empty();
        }
    }

    /** The parameter applies only when another one equals (or does not equal) a value. */
    record Visibility(String param, Optional<String> equalsValue, Optional<String> notEquals) {
        boolean holds(JsonNode params) {
            JsonNode other = params.get(param);
            String value = other == null || other.isNull() ? null : other.asText();
            return equalsValue.map(v -> v.equals(value)).orElse(true)
                    && notEquals.map(v -> !v.equals(value)).orElse(true);
        }

        String describe() {
            return equalsValue
                    .map(v -> "when `" + param + "` is " + v)
                    .orElseGet(() -> "when `" + param + "` is not " + notEquals.orElse(""));
        }
    }

    ParamSpec {
        requireNonNull(name, "name");
        requireNonNull(type, "type");
        options = List.copyOf(options);
    }

    /** Reads one entry of the catalog's data; a malformed entry stops the start. */
    static ParamSpec fromJson(JsonNode json) {
        String name = json.path("name").asText();
        Type type = Type.of(json.path("type").asText())
                .orElseThrow(() ->
                        new IllegalStateException("parameter " + name + " has an unknown type " + json.path("type")));
        var options = new ArrayList<String>();
        json.path("options").forEach(option -> options.add(option.asText()));
        JsonNode visible = json.path("visible_when");
        Optional<Visibility> visibleWhen = visible.isObject()
                ? Optional.of(new Visibility(
                        visible.path("param").asText(), text(visible, "equals"), text(visible, "not_equals")))
                : Optional.empty();
        return new ParamSpec(
                name,
                type,
                json.path("required").asBoolean(),
                Optional.ofNullable(json.get("default")),
                json.path("description").asText(""),
                options,
                number(json, "min"),
                number(json, "max"),
                json.path("integer").asBoolean(),
                whole(json, "min_length"),
                whole(json, "max_length"),
                text(json, "pattern").map(Pattern::compile),
                whole(json, "max_items"),
                visibleWhen);
    }

    /** Checks a value given for this parameter, adding what is wrong at {@code param}. */
    void check(JsonNode value, String param, Problems problems) {
        if (Templates.hasReference(value)) {
            return; // known at run time
        }
        switch (type) {
            case STRING, TEMPLATE -> checkText(value, param, problems);
            case NUMBER -> checkNumber(value, param, problems);
            case BOOLEAN -> {
                if (!value.isBoolean()) {
                    invalid(problems, param, "must be true or false");
                }
            }
            case SELECT -> {
                if (!value.isTextual() || !options.contains(value.textValue())) {
                    invalid(problems, param, "must be one of " + String.join(", ", options));
                }
            }
            case MULTISELECT ->
                checkList(
                        value,
                        param,
                        problems,
                        item -> item.isTextual() && options.contains(item.textValue()),
                        "one of " + String.join(", ", options));
            case STRING_LIST, ENDPOINT_REF_LIST, ENDPOINT_ORDERED_LIST ->
                checkList(
                        value,
                        param,
                        problems,
                        item -> item.isTextual() && !item.textValue().isBlank(),
                        "a non-empty string");
            case ENDPOINT_WEIGHTED_LIST ->
                checkList(
                        value,
                        param,
                        problems,
                        item -> item.isObject()
                                && item.path("endpoint").isTextual()
                                && item.path("weight").isNumber()
                                && item.path("weight").asDouble() > 0,
                        "an object {endpoint, weight > 0}");
            case CONTENT_RULE_LIST -> checkList(value, param, problems, JsonNode::isObject, "an object");
            case RANGE -> {
                if (!value.isObject()
                        || !value.path("min").isNumber()
                        || !value.path("max").isNumber()
                        || value.path("min").asDouble() > value.path("max").asDouble()) {
                    invalid(problems, param, "must be an object {min, max} with min at most max");
                }
            }
            case BRANCHES -> checkBranches(value, param, problems);
            case JSON -> {}
            default -> {
                if (!value.isTextual()
                        || value.textValue().isBlank()
                        || value.textValue().length() > 200) {
                    invalid(
                            problems,
                            param,
                            "must be the id of a "
                                    + type.wire().replace("_ref", "").replace('_', ' ')
                                    + " (a non-empty string of at most 200 characters)");
                }
            }
        }
    }

    private void checkText(JsonNode value, String param, Problems problems) {
        if (!value.isTextual()) {
            invalid(problems, param, "must be a string");
            return;
        }
        String text = value.textValue();
        if (required && text.isBlank()) {
            invalid(problems, param, "must not be empty");
        } else if (minLength.isPresent() && text.length() < minLength.getAsInt()) {
            invalid(problems, param, "must be at least " + minLength.getAsInt() + " characters long");
        } else if (maxLength.isPresent() && text.length() > maxLength.getAsInt()) {
            invalid(problems, param, "must be at most " + maxLength.getAsInt() + " characters long");
        } else if (pattern.isPresent() && !pattern.get().matcher(text).find()) {
            invalid(problems, param, "must match " + pattern.get().pattern());
        }
    }

    private void checkNumber(JsonNode value, String param, Problems problems) {
        if (!value.isNumber() || (integer && !value.canConvertToExactIntegral())) {
            invalid(problems, param, integer ? "must be an integer" : "must be a number");
        } else if (min.isPresent() && value.asDouble() < min.getAsDouble()
                || max.isPresent() && value.asDouble() > max.getAsDouble()) {
            invalid(problems, param, "must be between " + bound(min) + " and " + bound(max));
        }
    }

    private void checkList(
            JsonNode value, String param, Problems problems, java.util.function.Predicate<JsonNode> item, String what) {
        if (!value.isArray()) {
            invalid(problems, param, "must be an array");
        } else if (required && value.isEmpty()) {
            invalid(problems, param, "must not be empty");
        } else if (maxItems.isPresent() && value.size() > maxItems.getAsInt()) {
            invalid(problems, param, "must have at most " + maxItems.getAsInt() + " items");
        } else {
            for (int i = 0; i < value.size(); i++) {
                if (!Templates.hasReference(value.get(i)) && !item.test(value.get(i))) {
                    String at = ParamPath.index(param, i);
                    problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` must be " + what + ".");
                }
            }
        }
    }

    private static void checkBranches(JsonNode value, String param, Problems problems) {
        if (!value.isObject() || value.isEmpty()) {
            invalid(problems, param, "must be an object of named branches, each {condition, steps}");
            return;
        }
        for (var branch : value.properties()) {
            String at = ParamPath.key(param, branch.getKey());
            JsonNode condition = branch.getValue().path("condition");
            JsonNode steps = branch.getValue().path("steps");
            if (!condition.isTextual() || condition.textValue().isBlank()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at + ".condition",
                        "`" + at + ".condition` must be a boolean " + "expression.");
            }
            if (!steps.isArray() || steps.isEmpty()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at + ".steps",
                        "`" + at + ".steps` must list the ids of the " + "steps this branch leads to.");
            }
        }
    }

    private static void invalid(Problems problems, String param, String why) {
        problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` " + why + ".");
    }

    private static String bound(OptionalDouble bound) {
        if (bound.isEmpty()) {
            return "any";
        }
        double value = bound.getAsDouble();
        return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
    }

    private static Optional<String> text(JsonNode json, String field) {
        return json.path(field).isTextual() ? Optional.of(json.path(field).textValue()) : Optional.empty();
    }

    private static OptionalDouble number(JsonNode json, String field) {
        return json.path(field).isNumber() ? OptionalDouble.of(json.path(field).asDouble()) : OptionalDouble.empty();
    }

    private static OptionalInt whole(JsonNode json, String field) {
        return json.path(field).isInt() ? OptionalInt.of(json.path(field).asInt()) : OptionalInt.empty();
    }
}
