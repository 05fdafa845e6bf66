package dev.arbor.inference.cache;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.json.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A request as the cache knows it: the hash of its normalised body (its fields in name order at every level, without
 * {@code stream} and {@code stream_options}, which change how an answer is sent, not what it says), the hash of its
 * context (the same without the last user message's text), and that text, which a semantic match compares.
 */
public record CacheRequest(String requestHash, String contextHash, Optional<String> lastMessage) {
    private static final java.util.Set<String> DELIVERY_FIELDS = java.util.Set.of("stream", "stream_options");

    public CacheRequest {
        requireNonNull(requestHash, "requestHash");
        requireNonNull(contextHash, "contextHash");
        requireNonNull(lastMessage, "lastMessage");
    }

    /**
     * The request {@code body} of {@code operation} as a router's {@code version} (its last save, so that a saved
     * router starts afresh) answers it.
     */
    public static CacheRequest of(Operation operation, ObjectNode body, String version) {
        ObjectNode normal = body.deepCopy();
        DELIVERY_FIELDS.forEach(normal::remove);
        String prefix = operation.name() + "\n" + version + "\n";
        String requestHash = sha256(prefix + canonical(normal));
        Optional<String> last = Optional.empty();
        switch (operation) {
            case CHAT_COMPLETIONS -> {
                JsonNode messages = normal.path("messages");
                for (int i = messages.size() - 1; i >= 0; i--) {
                    if (messages.get(i) instanceof ObjectNode message
                            && message.path("role").asText().equals("user")) {
                        last = Optional.of(text(message.path("content")));
                        message.remove("content");
                        break;
                    }
                }
            }
            case COMPLETIONS -> {
                if (normal.path("prompt").isTextual()) {
                    last = Optional.of(normal.path("prompt").textValue());
                    normal.remove("prompt");
                }
            }
            case EMBEDDINGS -> {}
        }
        return new CacheRequest(requestHash, sha256(prefix + canonical(normal)), last.filter(text -> !text.isBlank()));
    }

    /** A message's text: its content, or its text parts one a line. */
    private static String text(JsonNode content) {
        if (content.isTextual()) {
            return content.textValue();
        }
        var text = new StringBuilder();
        for (JsonNode part : content) {
            if (part.path("text").isTextual()) {
                text.append(text.isEmpty() ? "" : "\n").append(part.path("text").textValue());
            }
        }
        return text.toString();
    }

    /** The JSON with every object's fields in name order, so that two spellings of one request read the same. */
    private static String canonical(JsonNode node) {
        return Json.writeString(ordered(node));
    }

    private static Object ordered(JsonNode node) {
        if (node instanceof ObjectNode object) {
            var fields = new TreeMap<String, Object>();
            object.properties()
                    .forEach((Map.Entry<String, JsonNode> field) ->
                            fields.put(field.getKey(), ordered(field.getValue())));
            return fields;
        }
        if (node instanceof ArrayNode array) {
            var items = new java.util.ArrayList<Object>(array.size());
            array.forEach(item -> items.add(ordered(item)));
            return items;
        }
        return node;
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
