package dev.arbor.platform.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.patterns.UserPatterns;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * One parameter of an action, in any catalog (pipelines', routers'): its type and the checks an editor runs before
 * saving (required, ranges, lengths, patterns, options) and when it applies ({@code visible_when}). What a type means
 * beyond its shape (whether a reference names something, how branches look) is the catalog owner's, through
 * {@link ParamRules}.
 */
public record ParamSpec(
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
    public enum Type {
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

        public String wire() {
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
    public record Visibility(String param, Optional<String> equalsValue, Optional<String> notEquals) {
        public boolean holds(JsonNode params) {
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

    private static final int MAX_ID_LENGTH = 200;
    private static final int MAX_TIMEOUT_SECONDS = 600;
    private static final int MAX_RULE_PATTERN = 1_000;
    private static final int MAX_TAG_LENGTH = 100;

    public ParamSpec {
        requireNonNull(name, "name");
        requireNonNull(type, "type");
        options = List.copyOf(options);
    }

    /** Reads one entry of the catalog's data; a malformed entry stops the start. */
    public static ParamSpec fromJson(JsonNode json) {
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
    void check(JsonNode value, String param, Problems problems, ParamRules rules) {
        if (rules.knownAtRunTime(value)) {
            return;
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
                checkList(value, param, problems, rules, (item, at) -> checkMultiselect(item, at, problems));
            case STRING_LIST ->
                checkList(value, param, problems, rules, (item, at) -> checkListText(item, at, problems));
            case ENDPOINT_REF_LIST ->
                checkList(value, param, problems, rules, (item, at) -> {
                    if (requireText(item, at, problems, "the id of an endpoint")) {
                        rules.checkReference(Type.ENDPOINT_REF, item.textValue(), at, problems);
                    }
                });
            case ENDPOINT_WEIGHTED_LIST ->
                checkList(value, param, problems, rules, (item, at) -> {
                    if (requireFields(item, at, problems, Set.of("endpoint", "weight"), "{endpoint, weight}")) {
                        endpoint(item, at, problems, rules);
                        JsonNode weight = item.get("weight");
                        if (weight == null || !weight.isNumber() || weight.asDouble() <= 0) {
                            invalid(problems, at + ".weight", "must be a number above 0 (weights are relative)");
                        }
                    }
                });
            case ENDPOINT_ORDERED_LIST ->
                checkList(value, param, problems, rules, (item, at) -> {
                    if (requireFields(
                            item,
                            at,
                            problems,
                            Set.of("endpoint", "timeout_seconds"),
                            "{endpoint, timeout_seconds?}")) {
                        endpoint(item, at, problems, rules);
                        JsonNode timeout = item.get("timeout_seconds");
                        if (timeout != null
                                && (!timeout.isNumber()
                                        || timeout.asDouble() <= 0
                                        || timeout.asDouble() > MAX_TIMEOUT_SECONDS)) {
                            invalid(
                                    problems,
                                    at + ".timeout_seconds",
                                    "must be a number of seconds above 0 and at most " + MAX_TIMEOUT_SECONDS);
                        }
                    }
                });
            case CONTENT_RULE_LIST ->
                checkList(value, param, problems, rules, (item, at) -> contentRule(item, at, problems));
            case RANGE -> {
                if (!value.isObject()
                        || !value.path("min").isNumber()
                        || !value.path("max").isNumber()
                        || value.path("min").asDouble() > value.path("max").asDouble()) {
                    invalid(problems, param, "must be an object {min, max} with min at most max");
                }
            }
            case BRANCHES -> rules.checkBranches(this, value, param, problems);
            case JSON -> {}
            default -> {
                if (!value.isTextual()
                        || value.textValue().isBlank()
                        || value.textValue().length() > MAX_ID_LENGTH) {
                    invalid(
                            problems,
                            param,
                            "must be the id of a "
                                    + type.wire().replace("_ref", "").replace('_', ' ')
                                    + " (a non-empty string of at most " + MAX_ID_LENGTH + " characters)");
                } else {
                    rules.checkReference(type, value.textValue(), param, problems);
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
            JsonNode value, String param, Problems problems, ParamRules rules, BiConsumer<JsonNode, String> item) {
        if (!value.isArray()) {
            invalid(problems, param, "must be an array");
        } else if (required && value.isEmpty()) {
            invalid(problems, param, "must not be empty");
        } else if (maxItems.isPresent() && value.size() > maxItems.getAsInt()) {
            invalid(problems, param, "must have at most " + maxItems.getAsInt() + " items");
        } else {
            for (int i = 0; i < value.size(); i++) {
                if (!rules.knownAtRunTime(value.get(i))) {
                    item.accept(value.get(i), ParamPath.index(param, i));
                }
            }
        }
    }

    private void checkMultiselect(JsonNode item, String at, Problems problems) {
        if (!item.isTextual() || !options.contains(item.textValue())) {
            invalid(problems, at, "must be one of " + String.join(", ", options));
        }
    }

    private void checkListText(JsonNode item, String at, Problems problems) {
        if (!item.isTextual() || item.textValue().isBlank()) {
            invalid(problems, at, "must be a non-empty string");
        } else if (maxLength.isPresent() && item.textValue().length() > maxLength.getAsInt()) {
            invalid(problems, at, "must be at most " + maxLength.getAsInt() + " characters long");
        }
    }

    private static boolean requireText(JsonNode item, String at, Problems problems, String what) {
        if (!item.isTextual() || item.textValue().isBlank() || item.textValue().length() > MAX_ID_LENGTH) {
            invalid(
                    problems,
                    at,
                    "must be " + what + " (a non-empty string of at most " + MAX_ID_LENGTH + " characters)");
            return false;
        }
        return true;
    }

    /** Whether an item is an object of these fields at most; each other field is a problem. */
    private static boolean requireFields(
            JsonNode item, String at, Problems problems, Set<String> fields, String shape) {
        if (!item.isObject()) {
            invalid(problems, at, "must be an object " + shape);
            return false;
        }
        for (var field : item.properties()) {
            if (!fields.contains(field.getKey())) {
                String where = ParamPath.key(at, field.getKey());
                invalid(problems, where, "is not a field of " + shape);
            }
        }
        return true;
    }

    private static void endpoint(JsonNode item, String at, Problems problems, ParamRules rules) {
        JsonNode endpoint = item.path("endpoint");
        if (requireText(endpoint, at + ".endpoint", problems, "the id of an endpoint")) {
            rules.checkReference(Type.ENDPOINT_REF, endpoint.textValue(), at + ".endpoint", problems);
        }
    }

    /**
     * {@code {match: regex|keyword, pattern, action: block|redact|tag, tag?, on: input|output|both}}: a regex must
     * be one RE2 runs, and a tag is named exactly when the rule tags.
     */
    private static void contentRule(JsonNode item, String at, Problems problems) {
        String shape = "{match, pattern, action, tag?, on}";
        if (!requireFields(item, at, problems, Set.of("match", "pattern", "action", "tag", "on"), shape)) {
            return;
        }
        Optional<String> match = choice(item, at, "match", List.of("regex", "keyword"), problems);
        Optional<String> action = choice(item, at, "action", List.of("block", "redact", "tag"), problems);
        choice(item, at, "on", List.of("input", "output", "both"), problems);
        JsonNode pattern = item.path("pattern");
        if (!pattern.isTextual()
                || pattern.textValue().isEmpty()
                || pattern.textValue().length() > MAX_RULE_PATTERN) {
            invalid(
                    problems,
                    at + ".pattern",
                    "must be a non-empty string of at most " + MAX_RULE_PATTERN + " characters");
        } else if (match.filter("regex"::equals).isPresent()) {
            UserPatterns.refusal(pattern.textValue()).ifPresent(why -> invalid(problems, at + ".pattern", why));
        }
        JsonNode tag = item.path("tag");
        boolean tags = action.filter("tag"::equals).isPresent();
        if (tags
                && (!tag.isTextual()
                        || tag.textValue().isBlank()
                        || tag.textValue().length() > MAX_TAG_LENGTH)) {
            invalid(
                    problems,
                    at + ".tag",
                    "must name the tag the rule sets (a non-empty string of at most " + MAX_TAG_LENGTH
                            + " characters)");
        } else if (!tags && item.has("tag") && action.isPresent()) {
            invalid(problems, at + ".tag", "applies only when `action` is tag");
        }
    }

    private static Optional<String> choice(
            JsonNode item, String at, String field, List<String> choices, Problems problems) {
        JsonNode value = item.path(field);
        if (value.isTextual() && choices.contains(value.textValue())) {
            return Optional.of(value.textValue());
        }
        if (value.isMissingNode() || value.isNull()) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    at + "." + field,
                    "`" + at + "." + field + "` is required: one of " + String.join(", ", choices) + ".");
        } else {
            invalid(problems, at + "." + field, "must be one of " + String.join(", ", choices));
        }
        return Optional.empty();
    }

    /** Adds that {@code param} is wrong, and why: {@code why} reads after the param's name. */
    public static void invalid(Problems problems, String param, String why) {
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
