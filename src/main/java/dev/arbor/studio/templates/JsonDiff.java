package dev.arbor.studio.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.arbor.platform.json.Json;

/**
 * The operations (RFC 6902 style) that turn one JSON value into another: {@code remove} and {@code add} for object
 * keys, {@code replace} for differing leaves and lists (a list is replaced whole: its order carries meaning).
 */
final class JsonDiff {
    private JsonDiff() {}

    static ArrayNode between(JsonNode from, JsonNode to) {
        ArrayNode ops = JsonNodeFactory.instance.arrayNode();
        diff("", from, to, ops);
        return ops;
    }

    private static void diff(String path, JsonNode from, JsonNode to, ArrayNode ops) {
        if (from.isObject() && to.isObject()) {
            from.fieldNames().forEachRemaining(key -> {
                if (!to.has(key)) {
                    ops.addObject().put("op", "remove").put("path", path + "/" + escape(key));
                }
            });
            to.properties().forEach(e -> {
                String child = path + "/" + escape(e.getKey());
                if (!from.has(e.getKey())) {
                    ops.addObject().put("op", "add").put("path", child).set("value", e.getValue());
                } else {
                    diff(child, from.get(e.getKey()), e.getValue(), ops);
                }
            });
            return;
        }
        if (!Json.writeString(from).equals(Json.writeString(to))) {
            ops.addObject().put("op", "replace").put("path", path).set("value", to);
        }
    }

    /** RFC 6901: {@code ~} becomes {@code ~0} and {@code /} becomes {@code ~1}. */
    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
