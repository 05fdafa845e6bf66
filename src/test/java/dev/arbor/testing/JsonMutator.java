package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * Seeded mutations of a valid JSON body, for fuzz tests: somewhere in it a field is dropped, added or given another
 * value (any JSON, with strings from the test's own list of troublemakers), or an array item removed or replaced.
 */
public final class JsonMutator {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final Random random;
    private final List<String> strings;

    public JsonMutator(Random random, List<String> strings) {
        this.random = random;
        this.strings = List.copyOf(strings);
    }

    /** Replaces, drops or adds one thing somewhere in {@code root}. */
    public void mutate(JsonNode root) {
        List<JsonNode> containers = new ArrayList<>();
        collect(root, containers);
        JsonNode target = containers.get(random.nextInt(containers.size()));
        if (target instanceof ObjectNode object && !object.isEmpty()) {
            List<String> names = new ArrayList<>();
            object.fieldNames().forEachRemaining(names::add);
            String name = names.get(random.nextInt(names.size()));
            switch (random.nextInt(4)) {
                case 0 -> object.remove(name);
                case 1 -> object.set(random.nextBoolean() ? name : "x" + random.nextInt(9), value(0));
                default -> object.set(name, value(0));
            }
        } else if (target instanceof ArrayNode array && !array.isEmpty()) {
            int index = random.nextInt(array.size());
            if (random.nextBoolean()) {
                array.remove(index);
            } else {
                array.set(index, value(0));
            }
        }
    }

    /** Any JSON value, nested at most a few levels. */
    public JsonNode value(int depth) {
        return switch (random.nextInt(depth > 2 ? 5 : 7)) {
            case 0 -> NODES.textNode(strings.get(random.nextInt(strings.size())));
            case 1 ->
                NODES.numberNode(Set.of(0, -1, 1, 7, Integer.MAX_VALUE).stream()
                        .skip(random.nextInt(5))
                        .findFirst()
                        .orElse(0));
            case 2 -> NODES.booleanNode(random.nextBoolean());
            case 3 -> NODES.nullNode();
            case 4 -> NODES.numberNode(random.nextDouble() * 1e300);
            case 5 -> {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    array.add(value(depth + 1));
                }
                yield array;
            }
            default -> {
                ObjectNode object = NODES.objectNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    object.set(strings.get(random.nextInt(strings.size())), value(depth + 1));
                }
                yield object;
            }
        };
    }

    private static void collect(JsonNode node, List<JsonNode> into) {
        if (node.isContainerNode()) {
            into.add(node);
            node.forEach(child -> collect(child, into));
        }
    }
}
