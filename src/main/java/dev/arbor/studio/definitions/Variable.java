package dev.arbor.studio.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import dev.arbor.platform.http.InlineMedia;
import dev.arbor.platform.json.Json;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * A declared template variable: its type and its normalised spec (constraints, default, flags).
 *
 * @param spec the normalised spec, as stored in the definition
 */
public record Variable(String name, VariableType type, ObjectNode spec) {
    public static final int DEFAULT_MAX_LENGTH = 20_000;
    public static final int MAX_LENGTH = 200_000;
    static final int DEFAULT_JSON_BYTES = 256 * 1024;

    public Variable {
        requireNonNull(name, "name");
        requireNonNull(type, "type");
        requireNonNull(spec, "spec");
    }

    public boolean required() {
        return spec.path("required").asBoolean(true);
    }

    public boolean sensitive() {
        return spec.path("sensitive").asBoolean(false);
    }

    public boolean trusted() {
        return spec.path("trusted").asBoolean(false);
    }

    /** The type as the definition writes it ({@code string}, {@code image}, ...). */
    public String typeName() {
        return type.wire();
    }

    /** Whether the value is a file attached to the decision (image, audio, video) rather than text. */
    public boolean isMedia() {
        return type.isMedia();
    }

    /** The longest text a string variable takes. */
    public int maxLength() {
        return spec.path("max_length").asInt(DEFAULT_MAX_LENGTH);
    }

    /** What the variable is for, as the definition describes it. */
    public Optional<String> description() {
        JsonNode description = spec.get("description");
        return description != null && description.isTextual() ? Optional.of(description.textValue()) : Optional.empty();
    }

    /** The value used when a decision sends none, if the definition gives one. */
    public Optional<JsonNode> defaultValue() {
        JsonNode value = spec.get("default");
        return value == null || value.isNull() ? Optional.empty() : Optional.of(value.deepCopy());
    }

    /** A value from a closed vocabulary cannot carry free text into a question. */
    public boolean closedVocabulary() {
        return switch (type) {
            case INTEGER, NUMBER, BOOLEAN -> true;
            case STRING -> spec.has("enum") || spec.has("format");
            default -> false;
        };
    }

    /** What is wrong with a value for this variable, in words, or nothing when it fits. */
    public Optional<String> problemWith(JsonNode value) {
        if (!type.isMedia() && InlineMedia.within(value)) {
            // such a URL was decoded to a file as the body was read: its text is not there to read as a value
            return Optional.of("holds a data: URL of 64 KiB or more; send media in a media variable");
        }
        return switch (type) {
            case STRING -> string(value);
            case INTEGER -> integer(value);
            case NUMBER -> number(value);
            case BOOLEAN -> value.isBoolean() ? Optional.empty() : expected("true or false", value);
            case JSON -> json(value);
            case OPTIONS -> options(value);
            case IMAGE, AUDIO, VIDEO -> media(value);
        };
    }

    private Optional<String> string(JsonNode value) {
        if (!value.isTextual()) {
            return expected("a string", value);
        }
        String text = value.textValue();
        int max = maxLength();
        if (text.length() > max) {
            return Optional.of("is " + text.length() + " characters long; at most " + max + " are allowed");
        }
        if (spec.has("min_length") && text.length() < spec.get("min_length").asInt()) {
            return Optional.of("is shorter than " + spec.get("min_length").asInt() + " characters");
        }
        if (spec.has("enum")) {
            for (JsonNode allowed : spec.get("enum")) {
                if (allowed.textValue().equals(text)) {
                    return Optional.empty();
                }
            }
            return Optional.of("must be one of " + join(spec.get("enum")) + ", not \"" + text + "\"");
        }
        if (spec.has("pattern") && !found(spec.get("pattern").textValue(), text)) {
            return Optional.of(
                    "does not match the pattern " + spec.get("pattern").textValue());
        }
        if (spec.has("format") && !matchesFormat(spec.get("format").textValue(), text)) {
            return Optional.of("is not a valid " + spec.get("format").textValue() + " (ISO 8601)");
        }
        return Optional.empty();
    }

    private Optional<String> integer(JsonNode value) {
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            return expected("an integer", value);
        }
        if (spec.has("enum")) {
            for (JsonNode allowed : spec.get("enum")) {
                if (allowed.longValue() == value.longValue()) {
                    return Optional.empty();
                }
            }
            return Optional.of("must be one of " + join(spec.get("enum")) + ", not " + value);
        }
        return range(value.doubleValue());
    }

    private Optional<String> number(JsonNode value) {
        if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
            return expected("a number", value);
        }
        return range(value.doubleValue());
    }

    private Optional<String> range(double number) {
        if (spec.has("minimum") && number < spec.get("minimum").doubleValue()) {
            return Optional.of("is below the minimum " + spec.get("minimum"));
        }
        if (spec.has("maximum") && number > spec.get("maximum").doubleValue()) {
            return Optional.of("is above the maximum " + spec.get("maximum"));
        }
        return Optional.empty();
    }

    private Optional<String> json(JsonNode value) {
        int max = spec.path("max_bytes").asInt(DEFAULT_JSON_BYTES);
        int size = Json.write(value).length;
        return size > max
                ? Optional.of("is " + size + " bytes of JSON; at most " + max + " are allowed")
                : Optional.empty();
    }

    private Optional<String> options(JsonNode value) {
        int count;
        if (value.isArray()) {
            var seen = new java.util.HashSet<String>();
            for (JsonNode item : value) {
                if (!item.isTextual()
                        || item.textValue().isBlank()
                        || item.textValue().length() > 200) {
                    return Optional.of("must hold option names of 1 to 200 characters");
                }
                if (!seen.add(item.textValue())) {
                    return Optional.of("names the option \"" + item.textValue() + "\" twice");
                }
            }
            count = value.size();
        } else if (value.isObject()) {
            for (var names = value.fieldNames(); names.hasNext(); ) {
                String option = names.next();
                if (option.isBlank() || option.length() > 200) {
                    return Optional.of("must hold option names of 1 to 200 characters");
                }
            }
            count = value.size();
        } else {
            return expected("a list of option names or an object of name to description", value);
        }
        int min = spec.path("min_items").asInt(1);
        int max = spec.path("max_items").asInt(1000);
        if (count < min || count > max) {
            return Optional.of("has " + count + " options; " + min + " to " + max + " are allowed");
        }
        return Optional.empty();
    }

    private Optional<String> media(JsonNode value) {
        if (!value.isTextual()
                || !(value.textValue().startsWith("file_") || value.textValue().startsWith("data:"))) {
            return expected("a file id (file_...) or a data URL", value);
        }
        return Optional.empty();
    }

    private static Optional<String> expected(String what, JsonNode value) {
        return Optional.of("must be " + what + ", not " + describe(value));
    }

    static String describe(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> "a string";
            case NUMBER -> value.isIntegralNumber() ? "an integer" : "a number";
            case BOOLEAN -> "a boolean";
            case ARRAY -> "a list";
            case OBJECT -> "an object";
            case NULL -> "null";
            default -> value.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static String join(JsonNode values) {
        var parts = new java.util.ArrayList<String>();
        values.forEach(v -> parts.add(v.isTextual() ? v.textValue() : v.toString()));
        return String.join(", ", parts);
    }

    static boolean matchesFormat(String format, String text) {
        try {
            if (format.equals("date")) {
                LocalDate.parse(text);
            } else {
                OffsetDateTime.parse(text);
            }
            return true;
        } catch (DateTimeParseException e) {
            return false;
        }
    }

    /**
     * Whether the pattern (RE2 syntax) matches somewhere in {@code text}; one saved before patterns were RE2 syntax
     * that RE2 cannot run matches nothing.
     */
    private static boolean found(String pattern, String text) {
        try {
            return Pattern.compile(pattern).matcher(text).find();
        } catch (PatternSyntaxException e) {
            return false;
        }
    }
}
