package dev.arbor.platform.http.bodies;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Schema;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One field of a JSON request body, declared once: a handler reads the field through it (with {@link BodyReader}'s
 * rules and messages) and the OpenAPI document describes the field from it, so that the two cannot drift. A
 * {@link BodySpec} lists a body's fields. Checks that are not about one field alone (one field's value depends on
 * another's, a URL the outbound policy must allow) stay in the handler, after the fields are read.
 *
 * @param <T> what the field reads as
 */
public sealed interface BodyField<T> {
    /** Whether a body must carry the field ({@code null} counts as absent). */
    enum Presence {
        REQUIRED,
        OPTIONAL
    }

    String name();

    Presence presence();

    /** The field's value, or empty when it is absent or refused; a refusal joins {@code body}'s problems. */
    Optional<T> read(BodyReader body);

    /** The field's shape, as the document shows it. */
    Schema schema();

    default boolean required() {
        return presence() == Presence.REQUIRED;
    }

    /**
     * This field, refused with its own words: a value its reading refuses (same code and param) says
     * "`name` {@code refusal}." instead of the reader's default message. A missing field keeps the default unless
     * {@link Worded#missingAs} words it too.
     */
    default Worded<T> refusedAs(String refusal) {
        return new Worded<>(this, refusal, Optional.empty());
    }

    /**
     * A string of at most {@code maxLength} characters; a required one must not be blank. With a {@code pattern}
     * the whole text must match it, or the field is refused with {@code why}.
     */
    record Text(String name, Presence presence, int maxLength, Optional<Pattern> pattern, String why)
            implements BodyField<String> {
        public Text {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            requireNonNull(pattern, "pattern");
            requireNonNull(why, "why");
            if (maxLength < 1) {
                throw new IllegalArgumentException("maxLength must be positive: " + maxLength);
            }
        }

        /** This field, refused with {@code why} unless its whole text matches {@code regex}. */
        public Text matching(Pattern regex, String why) {
            return new Text(name, presence, maxLength, Optional.of(regex), why);
        }

        @Override
        public Optional<String> read(BodyReader body) {
            body.requireDeclared(this);
            Optional<String> text = body.string(name, required(), maxLength);
            if (pattern.isPresent()
                    && text.isPresent()
                    && !pattern.get().matcher(text.get()).matches()) {
                body.reject(name, ErrorCode.INVALID_FIELD, why);
                return Optional.empty();
            }
            return text;
        }

        @Override
        public Schema schema() {
            // JSON Schema patterns are unanchored: anchor ours as Matcher.matches reads them; "\S" says "not blank"
            String regex = pattern.map(p -> "^(?:" + p.pattern() + ")$").orElse(required() ? "\\S" : "");
            return new Schema.Str(required() ? 1 : 0, maxLength, "", regex);
        }
    }

    /** One of a fixed set of strings, refused with {@code why} when it is another. */
    record Choice(String name, Presence presence, List<String> values, String why) implements BodyField<String> {
        public Choice {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            values = List.copyOf(values);
            requireNonNull(why, "why");
            if (values.isEmpty()) {
                throw new IllegalArgumentException("a choice needs values: " + name);
            }
        }

        @Override
        public Optional<String> read(BodyReader body) {
            body.requireDeclared(this);
            Optional<String> text = body.string(name, required(), Integer.MAX_VALUE);
            if (text.isPresent() && !values.contains(text.get())) {
                body.reject(name, ErrorCode.INVALID_FIELD, why);
                return Optional.empty();
            }
            return text;
        }

        @Override
        public Schema schema() {
            return new Schema.Enum(values);
        }
    }

    /** A whole number from {@code min} to {@code max}. */
    record Whole(String name, Presence presence, long min, long max) implements BodyField<Long> {
        public Whole {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            if (min > max) {
                throw new IllegalArgumentException("min " + min + " is above max " + max);
            }
        }

        @Override
        public Optional<Long> read(BodyReader body) {
            body.requireDeclared(this);
            return body.integer(name, required(), min, max);
        }

        @Override
        public Schema schema() {
            return Schema.integer(min, max);
        }
    }

    /** A number from {@code lower} to {@code upper}, each end in the range or not as it says. */
    record Decimal(String name, Presence presence, Schema.Bound lower, Schema.Bound upper)
            implements BodyField<Double> {
        public Decimal {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            requireNonNull(lower, "lower");
            requireNonNull(upper, "upper");
            if (lower.value() > upper.value()) {
                throw new IllegalArgumentException("lower bound " + lower + " is above " + upper);
            }
        }

        /** Whether {@code number} is in this field's range. */
        public boolean admits(double number) {
            return lower.admitsAbove(number) && upper.admitsBelow(number);
        }

        @Override
        public Optional<Double> read(BodyReader body) {
            body.requireDeclared(this);
            Optional<JsonNode> value = body.node(name, required());
            if (value.isPresent()
                    && !(value.get().isNumber() && admits(value.get().doubleValue()))) {
                body.reject(name, ErrorCode.INVALID_FIELD, refusal());
                return Optional.empty();
            }
            return value.map(JsonNode::doubleValue);
        }

        @Override
        public Schema schema() {
            return Schema.number(lower, upper);
        }

        private String refusal() {
            return "must be a number "
                    + (lower.inclusion() == Schema.Inclusion.INCLUSIVE ? "at least " : "above ") + plain(lower.value())
                    + (upper.inclusion() == Schema.Inclusion.INCLUSIVE ? " and at most " : " and below ")
                    + plain(upper.value());
        }

        private static String plain(double number) {
            return BigDecimal.valueOf(number).stripTrailingZeros().toPlainString();
        }
    }

    /**
     * One of a fixed list of values, each sent as its word ({@code wire}); any other value is refused with the list
     * of the words.
     */
    record Word<T>(String name, Presence presence, List<T> values, Function<T, String> wire) implements BodyField<T> {
        public Word {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            values = List.copyOf(values);
            requireNonNull(wire, "wire");
            if (values.isEmpty()) {
                throw new IllegalArgumentException("a word field needs values: " + name);
            }
        }

        @Override
        public Optional<T> read(BodyReader body) {
            body.requireDeclared(this);
            Optional<JsonNode> value = body.node(name, required());
            Optional<T> chosen = value.filter(JsonNode::isTextual)
                    .flatMap(text -> values.stream()
                            .filter(candidate -> wire.apply(candidate).equals(text.textValue()))
                            .findFirst());
            if (value.isPresent() && chosen.isEmpty()) {
                body.reject(name, ErrorCode.INVALID_FIELD, "must be " + words());
            }
            return chosen;
        }

        @Override
        public Schema schema() {
            return new Schema.Enum(values.stream().map(wire).toList());
        }

        /** "a, b or c". */
        private String words() {
            List<String> words = values.stream().map(wire).toList();
            return words.size() == 1
                    ? words.getFirst()
                    : String.join(", ", words.subList(0, words.size() - 1)) + " or " + words.getLast();
        }
    }

    /**
     * An object whose fields {@code spec} declares, read with the same rules: its reader's problems and warnings join
     * the outer body's, at {@code name.field}; a closed {@code spec} refuses fields it does not declare.
     */
    record Group(String name, Presence presence, BodySpec spec) implements BodyField<BodyReader> {
        public Group {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            requireNonNull(spec, "spec");
        }

        @Override
        public Optional<BodyReader> read(BodyReader body) {
            body.requireDeclared(this);
            return body.object(name, required(), spec);
        }

        @Override
        public Schema schema() {
            return spec.schema();
        }
    }

    /** A list of at most {@code maxItems} non-blank strings of at most {@code maxLength}; duplicates are dropped. */
    record Texts(String name, Presence presence, int maxItems, int maxLength) implements BodyField<List<String>> {
        public Texts {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            if (maxItems < 1 || maxLength < 1) {
                throw new IllegalArgumentException("maxItems and maxLength must be positive");
            }
        }

        @Override
        public Optional<List<String>> read(BodyReader body) {
            body.requireDeclared(this);
            return body.strings(name, required(), maxItems, maxLength);
        }

        @Override
        public Schema schema() {
            return Schema.arrayOf(new Schema.Str(1, maxLength, "", "\\S"), maxItems);
        }
    }

    /**
     * A list of at most {@code maxItems} words from a fixed list ({@code values}); duplicates are dropped, and a word
     * not in the list refuses the whole field, naming the words it takes.
     */
    record Words(String name, Presence presence, List<String> values, int maxItems) implements BodyField<List<String>> {
        /** Longer items are refused as too long before the words are compared. */
        private static final int MAX_LENGTH = 64;

        public Words {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            values = List.copyOf(values);
            if (values.isEmpty() || maxItems < 1) {
                throw new IllegalArgumentException("a words field needs values and a positive maxItems: " + name);
            }
        }

        @Override
        public Optional<List<String>> read(BodyReader body) {
            body.requireDeclared(this);
            Optional<List<String>> words = body.strings(name, required(), maxItems, MAX_LENGTH);
            if (words.isPresent() && !values.containsAll(words.get())) {
                body.reject(name, ErrorCode.INVALID_FIELD, "takes " + all());
                return Optional.empty();
            }
            return words;
        }

        @Override
        public Schema schema() {
            return Schema.arrayOf(new Schema.Enum(values), maxItems);
        }

        /** "a, b and c". */
        private String all() {
            return values.size() == 1
                    ? values.getFirst()
                    : String.join(", ", values.subList(0, values.size() - 1)) + " and " + values.getLast();
        }
    }

    /** {@code true} or {@code false}. */
    record Flag(String name, Presence presence) implements BodyField<Boolean> {
        public Flag {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
        }

        @Override
        public Optional<Boolean> read(BodyReader body) {
            body.requireDeclared(this);
            return body.bool(name, required());
        }

        @Override
        public Schema schema() {
            return Schema.bool();
        }
    }

    /** Any JSON value, which the handler checks itself; {@code shape} is what it accepts. */
    record Value(String name, Presence presence, Schema shape) implements BodyField<JsonNode> {
        public Value {
            requireNonNull(name, "name");
            requireNonNull(presence, "presence");
            requireNonNull(shape, "shape");
        }

        @Override
        public Optional<JsonNode> read(BodyReader body) {
            body.requireDeclared(this);
            return body.node(name, required());
        }

        @Override
        public Schema schema() {
            return shape;
        }
    }

    /**
     * A field whose refusals say {@code refusal}, see {@link #refusedAs}; {@code whenMissing}, if any, is what it says
     * when it is required and missing.
     */
    record Worded<T>(BodyField<T> field, String refusal, Optional<String> whenMissing) implements BodyField<T> {
        public Worded {
            requireNonNull(field, "field");
            requireNonNull(refusal, "refusal");
            requireNonNull(whenMissing, "whenMissing");
            if (field instanceof Worded<?>) {
                throw new IllegalArgumentException("'" + field.name() + "' already has its own refusal");
            }
            if (refusal.isBlank() || whenMissing.filter(String::isBlank).isPresent()) {
                throw new IllegalArgumentException("a refusal needs words: " + field.name());
            }
        }

        /** This field, saying "`name` {@code missing}." when it is required and missing. */
        public Worded<T> missingAs(String missing) {
            return new Worded<>(field, refusal, Optional.of(missing));
        }

        @Override
        public String name() {
            return field.name();
        }

        @Override
        public Presence presence() {
            return field.presence();
        }

        @Override
        public Optional<T> read(BodyReader body) {
            body.requireDeclared(this);
            return body.reworded(field, refusal, whenMissing);
        }

        @Override
        public Schema schema() {
            return field.schema();
        }
    }

    static Text text(Presence presence, String name, int maxLength) {
        return new Text(name, presence, maxLength, Optional.empty(), "");
    }

    static Choice choice(Presence presence, String name, List<String> values, String why) {
        return new Choice(name, presence, values, why);
    }

    static Whole integer(Presence presence, String name, long min, long max) {
        return new Whole(name, presence, min, max);
    }

    static Decimal number(Presence presence, String name, Schema.Bound lower, Schema.Bound upper) {
        return new Decimal(name, presence, lower, upper);
    }

    static <T> Word<T> word(Presence presence, String name, List<T> values, Function<T, String> wire) {
        return new Word<>(name, presence, values, wire);
    }

    static Group group(Presence presence, String name, BodySpec spec) {
        return new Group(name, presence, spec);
    }

    static Texts texts(Presence presence, String name, int maxItems, int maxLength) {
        return new Texts(name, presence, maxItems, maxLength);
    }

    static Words words(Presence presence, String name, List<String> values, int maxItems) {
        return new Words(name, presence, values, maxItems);
    }

    static Flag flag(Presence presence, String name) {
        return new Flag(name, presence);
    }

    static Value value(Presence presence, String name, Schema shape) {
        return new Value(name, presence, shape);
    }
}
