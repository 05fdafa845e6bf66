package dev.arbor.inference.cache;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.inference.openai.OpenAiAnswers;
import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.json.Json;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A kept answer sent as the stream a caller asked for: per choice, a first chunk with the role, the text a word (and
 * the spaces after it) a chunk, a last chunk with the finish reason; the usage chunk when the request asked for it
 * ({@code stream_options.include_usage}); then {@code [DONE]}.
 */
public final class Replay {
    private Replay() {}

    /** Whether a whole answer can be replayed as a stream (and so kept): every choice's text, no tool calls. */
    public static boolean replayable(JsonNode answer, Operation operation) {
        if (operation == Operation.EMBEDDINGS) {
            return answer.path("data").isArray();
        }
        JsonNode choices = answer.path("choices");
        if (!choices.isArray() || choices.isEmpty()) {
            return false;
        }
        for (JsonNode choice : choices) {
            JsonNode text = operation == Operation.COMPLETIONS
                    ? choice.path("text")
                    : choice.path("message").path("content");
            if (!text.isTextual() || choice.path("message").has("tool_calls")) {
                return false;
            }
        }
        return true;
    }

    /** The server-sent events of {@code answer}, a whole chat or text completion. */
    public static byte[] events(ObjectNode answer, Operation operation, boolean includeUsage) {
        var events = new ByteArrayOutputStream();
        boolean chat = operation == Operation.CHAT_COMPLETIONS;
        for (JsonNode choice : answer.path("choices")) {
            int index = choice.path("index").asInt();
            if (chat) {
                ObjectNode delta = Json.object().put("role", "assistant").put("content", "");
                events.writeBytes(OpenAiAnswers.event(chunk(answer, chat, index, delta, null)));
            }
            String text = chat
                    ? choice.path("message").path("content").asText("")
                    : choice.path("text").asText("");
            for (String piece : pieces(text)) {
                JsonNode delta = chat
                        ? Json.object().put("content", piece)
                        : Json.mapper().valueToTree(piece);
                events.writeBytes(OpenAiAnswers.event(chunk(answer, chat, index, delta, null)));
            }
            JsonNode finish = choice.path("finish_reason");
            events.writeBytes(OpenAiAnswers.event(chunk(
                    answer,
                    chat,
                    index,
                    chat ? Json.object() : Json.mapper().valueToTree(""),
                    finish.isTextual() ? finish.textValue() : "stop")));
        }
        if (includeUsage && answer.path("usage").isObject()) {
            ObjectNode usage = head(answer, chat);
            usage.putArray("choices");
            usage.set("usage", answer.path("usage"));
            events.writeBytes(OpenAiAnswers.event(usage));
        }
        events.writeBytes(OpenAiAnswers.done());
        return events.toByteArray();
    }

    private static ObjectNode chunk(
            ObjectNode answer,
            boolean chat,
            int index,
            JsonNode content,
            @org.jspecify.annotations.Nullable String finish) {
        ObjectNode chunk = head(answer, chat);
        ObjectNode choice = chunk.putArray("choices").addObject().put("index", index);
        choice.set(chat ? "delta" : "text", content);
        if (finish == null) {
            choice.putNull("finish_reason");
        } else {
            choice.put("finish_reason", finish);
        }
        return chunk;
    }

    private static ObjectNode head(ObjectNode answer, boolean chat) {
        return Json.object()
                .put("id", answer.path("id").asText(""))
                .put("object", chat ? "chat.completion.chunk" : "text_completion")
                .put("created", answer.path("created").asLong())
                .put("model", answer.path("model").asText(""));
    }

    /** The text cut after each run of spaces: a word and the spaces that follow it, a piece. */
    private static List<String> pieces(String text) {
        var pieces = new ArrayList<String>();
        int start = 0;
        for (int i = 1; i <= text.length(); i++) {
            if (i == text.length()
                    || Character.isWhitespace(text.charAt(i - 1)) && !Character.isWhitespace(text.charAt(i))) {
                pieces.add(text.substring(start, i));
                start = i;
            }
        }
        return pieces;
    }
}
