package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Pattern;

/**
 * Request bodies made from an OpenAPI document's JSON schemas, for fuzz tests: a valid body (every required member,
 * some optional ones, values within their bounds, enums and simple patterns), and seeded mutations of one that break
 * it in one way each (a wrong type, a missing required member, an extra member, a number past its bounds, a huge
 * string, deep nesting, a null, bytes that are not JSON or not UTF-8), the small ones by {@link JsonMutator}.
 */
public final class SchemaBodies {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    /** Strings tried, in order, for a pattern; each made unique by a counter where the pattern allows it. */
    private static final List<String> PATTERN_CANDIDATES =
            List.of("fuzz-%d", "fuzz_%d", "fuzz%d", "f%d", "%d", "a", "A", "x1", "1", "2026-01-01T00:00:00Z");

    private static final List<String> TROUBLE = List.of(
            "",
            " ",
            "\u0000",
            "'; DROP TABLE x; --",
            "../../etc/passwd",
            "\uD83D\uDE00",
            "%00",
            "<script>",
            "{{ x }}",
            "a".repeat(300));

    /** One way of breaking a valid body. */
    public enum Mutation {
        SMALL_CHANGE,
        WRONG_TYPE,
        MISSING_REQUIRED,
        EXTRA_MEMBER,
        BOUNDARY_NUMBER,
        HUGE_STRING,
        DEEP_NESTING,
        NULL_VALUE,
        NOT_AN_OBJECT,
        BROKEN_JSON,
        INVALID_UTF8
    }

    private final JsonNode components;
    private final Random random;
    private final JsonMutator mutator;
    private final Map<String, JsonNode> hints;
    private int counter;

    /**
     * @param hints values for members of these names wherever they appear, for what a schema cannot say: a value
     *     that must name an existing object or parse as a cron expression, a member required only together with
     *     another; a missing node leaves that member out
     */
    public SchemaBodies(JsonNode document, Map<String, JsonNode> hints, Random random) {
        this.components = document.path("components");
        this.hints = Map.copyOf(hints);
        this.random = random;
        this.mutator = new JsonMutator(random, TROUBLE);
    }

    /** A body the schema accepts, with some of its optional members. */
    public JsonNode valid(JsonNode schema) {
        return valid(schema, 0, false);
    }

    /**
     * A body the schema accepts, with its required members and the hinted ones only: the likeliest to be accepted
     * where members depend on each other in ways a schema does not say.
     */
    public JsonNode minimal(JsonNode schema) {
        return valid(schema, 0, true);
    }

    private JsonNode valid(JsonNode schema, int depth, boolean minimal) {
        JsonNode resolved = resolve(schema);
        if (resolved.has("const")) {
            return resolved.get("const").deepCopy();
        }
        if (resolved.has("enum")) {
            JsonNode values = resolved.get("enum");
            return values.get(random.nextInt(values.size())).deepCopy();
        }
        for (String choice : List.of("anyOf", "oneOf")) {
            if (resolved.has(choice)) {
                List<JsonNode> options = new ArrayList<>();
                resolved.get(choice).forEach(option -> {
                    if (!resolve(option).path("type").asText().equals("null")) {
                        options.add(option);
                    }
                });
                return options.isEmpty()
                        ? NODES.nullNode()
                        : valid(options.get(random.nextInt(options.size())), depth, minimal);
            }
        }
        String type = type(resolved);
        return switch (type) {
            case "object" -> object(resolved, depth, minimal);
            case "array" -> {
                ArrayNode array = NODES.arrayNode();
                int max = resolved.path("maxItems").asInt(3);
                int count = Math.min(max, Math.max(resolved.path("minItems").asInt(0), 1 + random.nextInt(2)));
                for (int i = 0; i < count && depth < 6; i++) {
                    array.add(valid(resolved.path("items"), depth + 1, minimal));
                }
                yield array;
            }
            case "string" -> NODES.textNode(string(resolved));
            case "integer" -> NODES.numberNode(integer(resolved));
            case "number" -> NODES.numberNode((double) integer(resolved));
            case "boolean" -> NODES.booleanNode(random.nextBoolean());
            case "null" -> NODES.nullNode();
            default -> NODES.textNode("fuzz");
        };
    }

    private ObjectNode object(JsonNode schema, int depth, boolean minimal) {
        ObjectNode object = NODES.objectNode();
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
            JsonNode hint = hints.get(property.getKey());
            if (hint != null && fits(hint, resolve(property.getValue()))) {
                // an optional member half the time, as one name may mean different things in different bodies
                if (!hint.isMissingNode()
                        && (required.contains(property.getKey()) || minimal || random.nextBoolean())) {
                    object.set(property.getKey(), hint.deepCopy());
                }
                continue;
            }
            boolean include = required.contains(property.getKey()) || (!minimal && depth < 3 && random.nextInt(3) == 0);
            if (include) {
                object.set(property.getKey(), valid(property.getValue(), depth + 1, minimal));
            }
        }
        return object;
    }

    private String string(JsonNode schema) {
        int min = schema.path("minLength").asInt(0);
        int max = schema.path("maxLength").asInt(64);
        String text = switch (schema.path("format").asText()) {
            case "uri" -> "https://example.com/fuzz/" + counter++;
            case "date-time" -> "2026-01-01T00:00:00Z";
            case "email" -> "fuzz" + counter++ + "@example.com";
            default -> patterned(schema.path("pattern").asText());
        };
        if (text.length() < min) {
            text = text + "x".repeat(min - text.length());
        }
        return text.length() > max ? text.substring(0, max) : text;
    }

    private String patterned(String pattern) {
        int unique = counter++;
        if (pattern.isEmpty()) {
            return "fuzz-" + unique;
        }
        Pattern compiled = Pattern.compile(pattern);
        for (String candidate : PATTERN_CANDIDATES) {
            String text = candidate.formatted(unique);
            if (compiled.matcher(text).find()) {
                return text;
            }
        }
        return "fuzz-" + unique;
    }

    private long integer(JsonNode schema) {
        long min = schema.path("minimum").asLong(0);
        long max = schema.path("maximum").asLong(min + 10);
        return min + random.nextLong(Math.max(1, Math.min(max - min + 1, 1000)));
    }

    /** A body that breaks {@code valid} (a body {@link #valid} made from {@code schema}) in the given way. */
    public byte[] mutated(JsonNode schema, JsonNode valid, Mutation mutation) {
        JsonNode body = valid.deepCopy();
        List<Slot> slots = new ArrayList<>();
        collect(resolve(schema), body, slots);
        Slot slot = slots.isEmpty() ? null : slots.get(random.nextInt(slots.size()));
        switch (mutation) {
            case SMALL_CHANGE -> {
                if (body.isContainerNode()) {
                    mutator.mutate(body);
                }
            }
            case WRONG_TYPE -> {
                if (slot != null) {
                    slot.parent().set(slot.name(), wrongType(slot.parent().get(slot.name())));
                }
            }
            case MISSING_REQUIRED -> {
                List<Slot> required = slots.stream().filter(Slot::required).toList();
                if (!required.isEmpty()) {
                    Slot dropped = required.get(random.nextInt(required.size()));
                    dropped.parent().remove(dropped.name());
                }
            }
            case EXTRA_MEMBER -> {
                ObjectNode target = slot != null ? slot.parent() : body.isObject() ? (ObjectNode) body : null;
                if (target != null) {
                    target.set("fuzz_extra_" + random.nextInt(9), mutator.value(0));
                }
            }
            case BOUNDARY_NUMBER -> {
                if (slot != null) {
                    slot.parent().set(slot.name(), boundary(slot.schema()));
                }
            }
            case HUGE_STRING -> {
                if (slot != null) {
                    slot.parent().put(slot.name(), "h".repeat(100_000 + random.nextInt(100_000)));
                }
            }
            case DEEP_NESTING -> {
                String nested = "[".repeat(5_000) + "]".repeat(5_000);
                String name = slot != null ? slot.name() : "nested";
                return ("{\"" + name + "\": " + nested + "}").getBytes(StandardCharsets.UTF_8);
            }
            case NULL_VALUE -> {
                if (slot != null) {
                    slot.parent().putNull(slot.name());
                }
            }
            case NOT_AN_OBJECT -> {
                return List.of("[]", "\"text\"", "42", "null", "true", "")
                        .get(random.nextInt(6))
                        .getBytes(StandardCharsets.UTF_8);
            }
            case BROKEN_JSON -> {
                String text = body.toString();
                return text.substring(0, random.nextInt(Math.max(1, text.length())))
                        .getBytes(StandardCharsets.UTF_8);
            }
            case INVALID_UTF8 -> {
                byte[] text = body.toString().getBytes(StandardCharsets.UTF_8);
                int quote = body.toString().lastIndexOf('"');
                if (quote > 0) {
                    byte[] broken = new byte[text.length + 2];
                    System.arraycopy(text, 0, broken, 0, quote);
                    broken[quote] = (byte) 0xC3;
                    broken[quote + 1] = (byte) 0x28;
                    broken[quote + 2] = (byte) 0xFF;
                    System.arraycopy(text, quote, broken, quote + 3, text.length - quote - 1);
                    return broken;
                }
                return new byte[] {'{', '"', (byte) 0xFF, '"', ':', '1', '}'};
            }
        }
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** One member of an object in the body, with its schema and whether the schema requires it. */
    private record Slot(ObjectNode parent, String name, JsonNode schema, boolean required) {}

    private void collect(JsonNode schema, JsonNode value, List<Slot> into) {
        if (!(value instanceof ObjectNode object)) {
            if (value instanceof ArrayNode array && !array.isEmpty()) {
                collect(resolve(schema.path("items")), array.get(0), into);
            }
            return;
        }
        List<String> required = new ArrayList<>();
        schema.path("required").forEach(name -> required.add(name.asText()));
        for (Map.Entry<String, JsonNode> member : object.properties()) {
            JsonNode memberSchema = resolve(schema.path("properties").path(member.getKey()));
            into.add(new Slot(object, member.getKey(), memberSchema, required.contains(member.getKey())));
            collect(memberSchema, member.getValue(), into);
        }
    }

    private JsonNode wrongType(JsonNode value) {
        if (value.isTextual()) {
            return random.nextBoolean()
                    ? NODES.numberNode(7)
                    : NODES.arrayNode().add(value.textValue());
        }
        if (value.isNumber() || value.isBoolean()) {
            return NODES.textNode(value.asText() + "x");
        }
        if (value.isContainerNode()) {
            return random.nextBoolean() ? NODES.textNode("fuzz") : NODES.numberNode(1);
        }
        return NODES.objectNode();
    }

    private JsonNode boundary(JsonNode schema) {
        List<JsonNode> candidates = new ArrayList<>(List.of(
                NODES.numberNode(-1),
                NODES.numberNode(0),
                NODES.numberNode(Long.MAX_VALUE),
                NODES.numberNode(Long.MIN_VALUE),
                NODES.numberNode(1.5),
                NODES.numberNode(1e308),
                NODES.numberNode(new java.math.BigInteger("9".repeat(40)))));
        if (schema.has("minimum")) {
            candidates.add(NODES.numberNode(schema.get("minimum").asLong() - 1));
        }
        if (schema.has("maximum")) {
            candidates.add(NODES.numberNode(schema.get("maximum").asLong() + 1));
        }
        return candidates.get(random.nextInt(candidates.size()));
    }

    /**
     * Whether a hint may stand for a member of this schema: one name means different things in different bodies (a
     * trigger's {@code scope} is an object, a budget's a word), so a hint of another type or outside an enum is not
     * used there.
     */
    private static boolean fits(JsonNode hint, JsonNode schema) {
        if (hint.isMissingNode()) {
            return true;
        }
        if (schema.has("enum")) {
            return java.util.stream.StreamSupport.stream(schema.get("enum").spliterator(), false)
                    .anyMatch(hint::equals);
        }
        return switch (type(schema)) {
            case "object" -> hint.isObject();
            case "array" -> hint.isArray();
            case "string" -> hint.isTextual();
            case "integer" -> hint.isIntegralNumber();
            case "number" -> hint.isNumber();
            case "boolean" -> hint.isBoolean();
            default -> true;
        };
    }

    private static String type(JsonNode schema) {
        JsonNode type = schema.path("type");
        if (type.isArray()) {
            for (JsonNode option : type) {
                if (!option.asText().equals("null")) {
                    return option.asText();
                }
            }
        }
        if (type.isTextual()) {
            return type.asText();
        }
        return schema.has("properties") ? "object" : "any";
    }

    /** The schema a {@code $ref} into the document's components names, or the schema itself. */
    public JsonNode resolve(JsonNode schema) {
        JsonNode at = schema;
        for (int hops = 0; at.has("$ref") && hops < 10; hops++) {
            String ref = at.get("$ref").asText();
            at = components.at(ref.substring("#/components".length()));
        }
        return at;
    }
}
