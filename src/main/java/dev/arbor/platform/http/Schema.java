package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The shape of a JSON value, as the OpenAPI document describes a body or a parameter: rendered as JSON Schema 2020-12
 * (what OpenAPI 3.1 uses). Shared shapes are {@link Named}: the document lists each once under its components and
 * refers to it by name.
 */
public sealed interface Schema {
    /** Any JSON value. */
    record Any(String description) implements Schema {}

    /**
     * A string of {@code minLength} to {@code maxLength} characters (0: no bound), in a JSON Schema {@code format} and
     * matching an ECMA-262 {@code pattern} (unanchored, as JSON Schema reads it) where those are not empty.
     */
    record Str(int minLength, int maxLength, String format, String pattern) implements Schema {
        public Str {
            requireNonNull(format, "format");
            requireNonNull(pattern, "pattern");
        }
    }

    record Int(long min, long max) implements Schema {}

    /** A number, with each end of its range where it has one. */
    record Num(Optional<Bound> lower, Optional<Bound> upper) implements Schema {
        public Num {
            requireNonNull(lower, "lower");
            requireNonNull(upper, "upper");
            if (lower.isPresent()
                    && upper.isPresent()
                    && lower.get().value() > upper.get().value()) {
                throw new IllegalArgumentException("lower bound " + lower.get() + " is above " + upper.get());
            }
        }
    }

    /** Whether a bound's value itself is in the range. */
    enum Inclusion {
        INCLUSIVE,
        EXCLUSIVE
    }

    /** One end of a number's range. */
    record Bound(double value, Inclusion inclusion) {
        public Bound {
            requireNonNull(inclusion, "inclusion");
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("a bound must be finite: " + value);
            }
        }

        public static Bound inclusive(double value) {
            return new Bound(value, Inclusion.INCLUSIVE);
        }

        public static Bound exclusive(double value) {
            return new Bound(value, Inclusion.EXCLUSIVE);
        }

        /** Whether {@code number} is on the range's side of this bound, taken as the lower end. */
        public boolean admitsAbove(double number) {
            return inclusion == Inclusion.INCLUSIVE ? number >= value : number > value;
        }

        /** Whether {@code number} is on the range's side of this bound, taken as the upper end. */
        public boolean admitsBelow(double number) {
            return inclusion == Inclusion.INCLUSIVE ? number <= value : number < value;
        }
    }

    record Bool() implements Schema {}

    /** One of a fixed set of strings (one value: a constant such as an object's {@code "object"} name). */
    record Enum(List<String> values) implements Schema {
        public Enum {
            values = List.copyOf(values);
        }
    }

    record Arr(Schema items, int maxItems) implements Schema {
        public Arr {
            requireNonNull(items, "items");
        }
    }

    /** An object whose keys are free and whose values all have one shape. */
    record MapOf(Schema values) implements Schema {
        public MapOf {
            requireNonNull(values, "values");
        }
    }

    /**
     * An object with known properties. Others may appear too (a request's unknown fields are ignored with a warning,
     * and a response may gain fields) unless it {@code refusesOthers}: a request body that refuses fields it does not
     * know.
     */
    record Obj(List<Property> properties, boolean refusesOthers) implements Schema {
        public Obj {
            properties = List.copyOf(properties);
        }

        /** This object, refusing properties it does not list. */
        public Obj closed() {
            return new Obj(properties, true);
        }

        public Obj required(String name, Schema schema) {
            return with(new Property(name, schema, true));
        }

        public Obj optional(String name, Schema schema) {
            return with(new Property(name, schema, false));
        }

        private Obj with(Property property) {
            var all = new ArrayList<>(properties);
            all.add(property);
            return new Obj(all, refusesOthers);
        }
    }

    record Property(String name, Schema schema, boolean required) {
        public Property {
            requireNonNull(name, "name");
            requireNonNull(schema, "schema");
        }
    }

    /** The value or JSON {@code null}. */
    record Nullable(Schema schema) implements Schema {
        public Nullable {
            requireNonNull(schema, "schema");
        }
    }

    /** A value of any of these shapes. */
    record AnyOf(List<Schema> options) implements Schema {
        public AnyOf {
            options = List.copyOf(options);
        }
    }

    /** A shared shape, listed once under the document's components. */
    record Named(String name, Schema schema) implements Schema {
        public Named {
            requireNonNull(name, "name");
            requireNonNull(schema, "schema");
        }
    }

    static Schema any() {
        return new Any("");
    }

    /** Any JSON value, saying what it holds. */
    static Schema any(String description) {
        return new Any(description);
    }

    static Schema string() {
        return new Str(0, 0, "", "");
    }

    static Schema string(int maxLength) {
        return new Str(0, maxLength, "", "");
    }

    /** A string in a JSON Schema format, such as {@code uri} or {@code date-time}. */
    static Schema formatted(String format) {
        return new Str(0, 0, format, "");
    }

    static Schema integer() {
        return new Int(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    static Schema integer(long min, long max) {
        return new Int(min, max);
    }

    static Schema number() {
        return new Num(Optional.empty(), Optional.empty());
    }

    /** A number from {@code lower} to {@code upper}, each end in the range or not as it says. */
    static Schema number(Bound lower, Bound upper) {
        return new Num(Optional.of(lower), Optional.of(upper));
    }

    static Schema bool() {
        return new Bool();
    }

    static Schema oneOf(String... values) {
        return new Enum(List.of(values));
    }

    static Schema arrayOf(Schema items) {
        return new Arr(items, 0);
    }

    static Schema arrayOf(Schema items, int maxItems) {
        return new Arr(items, maxItems);
    }

    static Schema mapOf(Schema values) {
        return new MapOf(values);
    }

    static Obj object() {
        return new Obj(List.of(), false);
    }

    static Schema nullable(Schema schema) {
        return new Nullable(schema);
    }

    static Schema anyOf(Schema... options) {
        return new AnyOf(List.of(options));
    }

    static Named named(String name, Schema schema) {
        return new Named(name, schema);
    }

    /** A resource's fields: {@code id} and {@code object} (always {@code objectName}) first. */
    static Obj resource(String objectName) {
        return object().required("id", string()).required("object", oneOf(objectName));
    }

    /** What a delete answers: {@code {object: "<name>.deleted", deleted: true, id}}. */
    static Schema deleted(String objectName) {
        return object().required("object", oneOf(objectName + ".deleted"))
                .required("deleted", bool())
                .required("id", string());
    }

    /** A time as whole seconds since 1970 (UTC). */
    static Schema timestamp() {
        return integer(0, Long.MAX_VALUE);
    }

    /** The contract's list shape, {@code {object: "list", data, first_id, last_id, has_more}}, of these items. */
    static Schema list(Schema item) {
        Schema list = object().required("object", oneOf("list"))
                .required("data", arrayOf(item))
                .required("first_id", nullable(string()))
                .required("last_id", nullable(string()))
                .required("has_more", bool());
        return item instanceof Named named ? named(named.name() + "List", list) : list;
    }

    /** This shape as JSON Schema; a {@link Named} one is a {@code $ref} to the document's components. */
    default Map<String, Object> json() {
        var out = new LinkedHashMap<String, Object>();
        switch (this) {
            case Any any -> {
                if (!any.description().isEmpty()) {
                    out.put("description", any.description());
                }
            }
            case Str str -> {
                out.put("type", "string");
                if (str.minLength() > 0) {
                    out.put("minLength", str.minLength());
                }
                if (str.maxLength() > 0) {
                    out.put("maxLength", str.maxLength());
                }
                if (!str.format().isEmpty()) {
                    out.put("format", str.format());
                }
                if (!str.pattern().isEmpty()) {
                    out.put("pattern", str.pattern());
                }
            }
            case Int number -> {
                out.put("type", "integer");
                if (number.min() != Long.MIN_VALUE) {
                    out.put("minimum", number.min());
                }
                if (number.max() != Long.MAX_VALUE) {
                    out.put("maximum", number.max());
                }
            }
            case Num number -> {
                out.put("type", "number");
                number.lower()
                        .ifPresent(bound -> out.put(
                                bound.inclusion() == Inclusion.INCLUSIVE ? "minimum" : "exclusiveMinimum",
                                bound.value()));
                number.upper()
                        .ifPresent(bound -> out.put(
                                bound.inclusion() == Inclusion.INCLUSIVE ? "maximum" : "exclusiveMaximum",
                                bound.value()));
            }
            case Bool _ -> out.put("type", "boolean");
            case Enum values -> {
                out.put("type", "string");
                if (values.values().size() == 1) {
                    out.put("const", values.values().getFirst());
                } else {
                    out.put("enum", values.values());
                }
            }
            case Arr array -> {
                out.put("type", "array");
                out.put("items", array.items().json());
                if (array.maxItems() > 0) {
                    out.put("maxItems", array.maxItems());
                }
            }
            case MapOf map -> {
                out.put("type", "object");
                out.put("additionalProperties", map.values().json());
            }
            case Obj object -> {
                out.put("type", "object");
                var properties = new LinkedHashMap<String, Object>();
                var required = new ArrayList<String>();
                for (Property property : object.properties()) {
                    properties.put(property.name(), property.schema().json());
                    if (property.required()) {
                        required.add(property.name());
                    }
                }
                out.put("properties", properties);
                if (!required.isEmpty()) {
                    out.put("required", required);
                }
                if (object.refusesOthers()) {
                    out.put("additionalProperties", false);
                }
            }
            case Nullable nullable -> {
                Map<String, Object> inner = nullable.schema().json();
                if (inner.get("type") instanceof String type && !inner.containsKey("const")) {
                    out.putAll(inner);
                    out.put("type", List.of(type, "null"));
                    if (inner.get("enum") instanceof List<?> values) {
                        var withNull = new ArrayList<Object>(values);
                        withNull.add(null);
                        out.put("enum", withNull);
                    }
                } else {
                    out.put("anyOf", List.of(inner, Map.of("type", "null")));
                }
            }
            case AnyOf any ->
                out.put("anyOf", any.options().stream().map(Schema::json).toList());
            case Named named -> out.put("$ref", "#/components/schemas/" + named.name());
        }
        return out;
    }

    /** Calls {@code visit} with every named shape this one uses, itself included, and with theirs in turn. */
    default void eachNamed(Consumer<Named> visit) {
        switch (this) {
            case Named named -> {
                visit.accept(named);
                named.schema().eachNamed(visit);
            }
            case Arr array -> array.items().eachNamed(visit);
            case MapOf map -> map.values().eachNamed(visit);
            case Obj object -> object.properties().forEach(p -> p.schema().eachNamed(visit));
            case Nullable nullable -> nullable.schema().eachNamed(visit);
            case AnyOf any -> any.options().forEach(o -> o.eachNamed(visit));
            case Any _, Str _, Int _, Num _, Bool _, Enum _ -> {}
        }
    }
}
