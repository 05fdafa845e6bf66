package dev.arbor.inference.openai;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.json.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Answers in the shapes of OpenAI's API that this server writes itself (a deployment's replicas, a router's canned
 * response): a chat completion, its stream's chunks, a text completion, an embeddings list.
 */
public final class OpenAiAnswers {
    private OpenAiAnswers() {}

    /** One answer's identity: its id (the same in every chunk of a stream), when it was made, the model named. */
    public record Identity(String id, long created, String model) {
        public Identity {
            requireNonNull(id, "id");
            requireNonNull(model, "model");
        }

        /** A new chat completion's identity, {@code created} in Unix seconds. */
        public static Identity chat(long created, String model) {
            return new Identity("chatcmpl-" + random(), created, model);
        }

        /** A new text completion's identity. */
        public static Identity text(long created, String model) {
            return new Identity("cmpl-" + random(), created, model);
        }

        private static String random() {
            return UUID.randomUUID().toString().replace("-", "");
        }
    }

    public static Map<String, Object> chatCompletion(
            Identity identity, String content, String finishReason, long promptTokens, long completionTokens) {
        var message = new LinkedHashMap<String, Object>();
        message.put("role", "assistant");
        message.put("content", content);
        return completion(
                identity, "chat.completion", choice("message", message, finishReason), promptTokens, completionTokens);
    }

    public static Map<String, Object> textCompletion(
            Identity identity, String text, String finishReason, long promptTokens, long completionTokens) {
        return completion(
                identity, "text_completion", choice("text", text, finishReason), promptTokens, completionTokens);
    }

    /**
     * A chat stream's chunk: {@code delta} (the role in the first, text in the next), {@code finishReason} in the last
     * (null before).
     */
    public static Map<String, Object> chatChunk(
            Identity identity, Map<String, Object> delta, @Nullable String finishReason) {
        Map<String, Object> chunk = head(identity, "chat.completion.chunk");
        chunk.put("choices", List.of(choice("delta", delta, finishReason)));
        return chunk;
    }

    /** The chunk a stream ends with when the caller asked for usage ({@code stream_options.include_usage}). */
    public static Map<String, Object> usageChunk(Identity identity, long promptTokens, long completionTokens) {
        Map<String, Object> chunk = head(identity, "chat.completion.chunk");
        chunk.put("choices", List.of());
        chunk.put("usage", usage(promptTokens, completionTokens));
        return chunk;
    }

    /** {@code data: <json>} and the blank line that ends a server-sent event. */
    public static byte[] event(Object data) {
        return ("data: " + Json.writeString(data) + "\n\n").getBytes(StandardCharsets.UTF_8);
    }

    /** The event that ends an OpenAI stream. */
    public static byte[] done() {
        return "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);
    }

    public static Map<String, Object> embeddings(String model, List<Object> vectors, long promptTokens) {
        var data = new ArrayList<Map<String, Object>>();
        for (int i = 0; i < vectors.size(); i++) {
            var item = new LinkedHashMap<String, Object>();
            item.put("object", "embedding");
            item.put("index", i);
            item.put("embedding", vectors.get(i));
            data.add(item);
        }
        var answer = new LinkedHashMap<String, Object>();
        answer.put("object", "list");
        answer.put("data", data);
        answer.put("model", model);
        answer.put("usage", Map.of("prompt_tokens", promptTokens, "total_tokens", promptTokens));
        return answer;
    }

    /** A whole answer's one choice with the tokens it came to. */
    private static Map<String, Object> completion(
            Identity identity, String object, Map<String, Object> choice, long promptTokens, long completionTokens) {
        Map<String, Object> answer = head(identity, object);
        answer.put("choices", List.of(choice));
        answer.put("usage", usage(promptTokens, completionTokens));
        return answer;
    }

    /** The one choice an answer has: {@code key} names what it holds (a message, text, a stream's delta). */
    private static Map<String, Object> choice(String key, Object value, @Nullable String finishReason) {
        var choice = new LinkedHashMap<String, Object>();
        choice.put("index", 0);
        choice.put(key, value);
        choice.put("logprobs", null);
        choice.put("finish_reason", finishReason);
        return choice;
    }

    private static Map<String, Object> head(Identity identity, String object) {
        var answer = new LinkedHashMap<String, Object>();
        answer.put("id", identity.id());
        answer.put("object", object);
        answer.put("created", identity.created());
        answer.put("model", identity.model());
        return answer;
    }

    private static Map<String, Object> usage(long promptTokens, long completionTokens) {
        var usage = new LinkedHashMap<String, Object>();
        usage.put("prompt_tokens", promptTokens);
        usage.put("completion_tokens", completionTokens);
        usage.put("total_tokens", promptTokens + completionTokens);
        return usage;
    }
}
