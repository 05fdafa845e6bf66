package dev.arbor.platform.http.bodies;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Reads the fields of a JSON object body, collecting every problem of the pass instead of stopping at the first.
 * Call {@link #finish()} last: it throws when anything was wrong and otherwise returns a warning for each field the
 * endpoint does not know. A JSON {@code null} counts as absent.
 */
public final class BodyReader {
    private final ObjectNode body;
    private final @Nullable String prefix;
    private final Problems problems;
    private final Optional<BodySpec> spec;
    private final Set<String> known = new HashSet<>();
    private final List<BodyReader> children = new ArrayList<>();

    private BodyReader(ObjectNode body, @Nullable String prefix, Problems problems, Optional<BodySpec> spec) {
        this.body = requireNonNull(body, "body");
        this.prefix = prefix;
        this.problems = problems;
        this.spec = spec;
    }

    public static BodyReader of(ObjectNode body) {
        return new BodyReader(body, null, new Problems(), Optional.empty());
    }

    /** A reader of a body declared by {@code spec}: see {@link BodySpec#reader}. */
    static BodyReader of(ObjectNode body, BodySpec spec) {
        return new BodyReader(body, null, new Problems(), Optional.of(requireNonNull(spec, "spec")));
    }

    /** Refuses, as a programming error, to read a field the body's declaration does not list. */
    void requireDeclared(BodyField<?> field) {
        if (spec.isPresent() && !spec.get().declares(field)) {
            throw new IllegalStateException("'" + field.name() + "' is not declared by this body's BodySpec");
        }
    }

    /**
     * Reads {@code field}, a refused value saying {@code refusal} and, when {@code missing} is given, a missing field
     * saying that, instead of the default messages.
     */
    <T> Optional<T> reworded(BodyField<T> field, String refusal, Optional<String> missing) {
        int before = problems.size();
        Optional<T> value = field.read(this);
        String param = path(field.name());
        problems.rewordSince(
                before,
                param,
                problem -> problem.code() == ErrorCode.MISSING_FIELD
                        ? missing.map(words -> "`" + param + "` " + words + ".").orElse(problem.message())
                        : "`" + param + "` " + refusal + ".");
        return value;
    }

    public Problems problems() {
        return problems;
    }

    public Optional<String> string(String name, boolean required, int maxLength) {
        JsonNode value = field(name, required);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isTextual()) {
            return invalid(name, "must be a string");
        }
        String text = value.textValue();
        if (required && text.isBlank()) {
            return invalid(name, "must not be empty");
        }
        if (text.length() > maxLength) {
            return invalid(name, "is longer than " + maxLength + " characters");
        }
        return Optional.of(text);
    }

    public Optional<Long> integer(String name, boolean required, long min, long max) {
        JsonNode value = field(name, required);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber()) {
            return invalid(name, "must be an integer between " + min + " and " + max);
        }
        long number = value.longValue();
        if (!value.canConvertToLong() || number < min || number > max) {
            return invalid(name, "must be between " + min + " and " + max);
        }
        return Optional.of(number);
    }

    /** A list of distinct strings, in the order given, duplicates dropped. */
    public Optional<List<String>> strings(String name, boolean required, int maxItems, int maxLength) {
        JsonNode value = field(name, required);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isArray()) {
            return invalid(name, "must be an array of strings");
        }
        if (value.size() > maxItems) {
            return invalid(name, "has more than " + maxItems + " items");
        }
        var items = new LinkedHashSet<String>();
        boolean ok = true;
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            String param = ParamPath.index(path(name), i);
            if (!item.isTextual() || item.textValue().isBlank()) {
                problems.add(ErrorCode.INVALID_FIELD, param, "`" + param + "` must be a non-empty string.");
                ok = false;
            } else if (item.textValue().length() > maxLength) {
                problems.add(
                        ErrorCode.INVALID_FIELD, param, "`" + param + "` is longer than " + maxLength + " characters.");
                ok = false;
            } else {
                items.add(item.textValue());
            }
        }
        return ok ? Optional.of(List.copyOf(items)) : Optional.empty();
    }

    /** Reached through {@link BodyField.Flag}. */
    Optional<Boolean> bool(String name, boolean required) {
        JsonNode value = field(name, required);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isBoolean()) {
            return invalid(name, "must be true or false");
        }
        return Optional.of(value.booleanValue());
    }

    /** Any JSON value, checked by the caller. */
    public Optional<JsonNode> node(String name, boolean required) {
        return Optional.ofNullable(field(name, required));
    }

    /** The fields of a nested object, read with the same rules; its problems and warnings join this reader's. */
    public Optional<BodyReader> object(String name, boolean required) {
        return object(name, required, Optional.empty());
    }

    /** A nested object declared by {@code spec}: see {@link BodyField.Group}. */
    Optional<BodyReader> object(String name, boolean required, BodySpec spec) {
        return object(name, required, Optional.of(requireNonNull(spec, "spec")));
    }

    private Optional<BodyReader> object(String name, boolean required, Optional<BodySpec> declared) {
        JsonNode value = field(name, required);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            return invalid(name, "must be an object");
        }
        var child = new BodyReader((ObjectNode) value, path(name), problems, declared);
        declared.filter(spec -> spec.closedAs().isPresent())
                .ifPresent(spec -> spec.refuseUndeclared((ObjectNode) value, path(name), problems));
        children.add(child);
        return Optional.of(child);
    }

    /** Records a problem with a field found by the caller's own checks. */
    public void reject(String name, ErrorCode code, String why) {
        String param = path(name);
        problems.add(code, param, "`" + param + "` " + why + ".");
    }

    /** Records a problem with one item of a list field. */
    public void rejectItem(String name, int index, ErrorCode code, String why) {
        String param = ParamPath.index(path(name), index);
        problems.add(code, param, "`" + param + "` " + why + ".");
    }

    /** Throws the collected problems, if any; otherwise warns about every field nobody asked for. */
    public List<Warning> finish() {
        problems.throwIfAny();
        return unknownFields();
    }

    /**
     * A warning for each field nobody asked for, without throwing: for a caller that reports this reader's problems
     * together with those of a later check.
     */
    public List<Warning> unknownFields() {
        var warnings = new ArrayList<Warning>();
        for (var names = body.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                String param = path(name);
                warnings.add(new Warning(
                        WarningCode.UNKNOWN_FIELD_IGNORED,
                        "`" + param + "` is not a field of this endpoint and was ignored.",
                        param));
            }
        }
        for (BodyReader child : children) {
            warnings.addAll(child.unknownFields());
        }
        return List.copyOf(warnings);
    }

    private @Nullable JsonNode field(String name, boolean required) {
        known.add(name);
        JsonNode value = body.get(name);
        if (value == null || value.isNull()) {
            if (required) {
                String param = path(name);
                problems.add(ErrorCode.MISSING_FIELD, param, "`" + param + "` is required.");
            }
            return null;
        }
        return value;
    }

    private <T> Optional<T> invalid(String name, String why) {
        reject(name, ErrorCode.INVALID_FIELD, why);
        return Optional.empty();
    }

    private String path(String name) {
        return ParamPath.key(prefix, name);
    }
}
