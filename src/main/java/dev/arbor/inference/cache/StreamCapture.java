package dev.arbor.inference.cache;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.inference.openai.Operation;
import dev.arbor.inference.openai.StreamEdit;
import dev.arbor.platform.json.Json;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads a streamed answer as it goes to the caller (after the router's own edit of it, if any) and puts it together
 * as the whole answer a cache keeps. Each attempt's stream is read apart (a fallback's or a hedge's other endpoint
 * never mixes in): the answer is the one whose stream reached {@code [DONE]}, or finished every choice, once it
 * ended. An answer that calls tools is not put together: a cache replays text.
 */
public final class StreamCapture implements StreamEdit {
    private final Optional<StreamEdit> inner;
    private final Operation operation;
    private final String model;
    private volatile Optional<ObjectNode> answer = Optional.empty();

    /** @param model the model as the caller named it, which a replay says */
    public StreamCapture(Optional<StreamEdit> inner, Operation operation, String model) {
        this.inner = requireNonNull(inner, "inner");
        this.operation = requireNonNull(operation, "operation");
        this.model = requireNonNull(model, "model");
    }

    /** The whole answer, once a stream ended complete. */
    public Optional<ObjectNode> answer() {
        return answer;
    }

    @Override
    public StreamEdit forAttempt() {
        return new Attempt(inner.map(StreamEdit::forAttempt));
    }

    @Override
    public ObjectNode chunk(ObjectNode chunk) {
        throw new IllegalStateException("a stream is read per attempt (forAttempt)");
    }

    @Override
    public Ending finish(ObjectNode last) {
        throw new IllegalStateException("a stream is read per attempt (forAttempt)");
    }

    private static final class Choice {
        private final StringBuilder text = new StringBuilder();
        private Optional<String> finishReason = Optional.empty();
    }

    /** One attempt's stream. */
    private final class Attempt implements StreamEdit {
        private final Optional<StreamEdit> edit;
        private final TreeMap<Integer, Choice> choices = new TreeMap<>();
        private Optional<ObjectNode> head = Optional.empty();
        private Optional<JsonNode> usage = Optional.empty();
        private boolean toolCalls;

        Attempt(Optional<StreamEdit> edit) {
            this.edit = edit;
        }

        @Override
        public ObjectNode chunk(ObjectNode chunk) {
            ObjectNode sent = edit.isPresent() ? edit.get().chunk(chunk) : chunk;
            read(sent);
            return sent;
        }

        @Override
        public Ending finish(ObjectNode last) {
            Ending ending = edit.isPresent() ? edit.get().finish(last) : Ending.NOTHING;
            ending.heldBack().ifPresent(this::read);
            if (!choices.isEmpty() && choices.values().stream().allMatch(c -> c.finishReason.isPresent())) {
                publish();
            }
            return ending;
        }

        @Override
        public void done() {
            if (edit.isPresent()) {
                edit.get().done();
            }
            publish();
        }

        private void publish() {
            if (!toolCalls && head.isPresent() && !choices.isEmpty()) {
                answer = Optional.of(whole(head.get()));
            }
        }

        private void read(ObjectNode chunk) {
            if (head.isEmpty()) {
                head = Optional.of(chunk);
            }
            if (chunk.path("usage").isObject()) {
                usage = Optional.of(chunk.path("usage"));
            }
            JsonNode list = chunk.path("choices");
            for (int i = 0; i < list.size(); i++) {
                JsonNode choice = list.get(i);
                Choice kept = choices.computeIfAbsent(choice.path("index").asInt(i), k -> new Choice());
                JsonNode text = operation == Operation.COMPLETIONS
                        ? choice.path("text")
                        : choice.path("delta").path("content");
                if (text.isTextual()) {
                    kept.text.append(text.textValue());
                }
                if (choice.path("delta").has("tool_calls")
                        || choice.path("delta").has("function_call")) {
                    toolCalls = true;
                }
                if (choice.hasNonNull("finish_reason")) {
                    kept.finishReason = Optional.of(choice.path("finish_reason").asText());
                }
            }
        }

        private ObjectNode whole(ObjectNode first) {
            ObjectNode whole = Json.object();
            whole.put("id", first.path("id").asText(""));
            whole.put("object", operation == Operation.COMPLETIONS ? "text_completion" : "chat.completion");
            whole.put("created", first.path("created").asLong());
            whole.put("model", model);
            ArrayNode list = whole.putArray("choices");
            choices.forEach((index, choice) -> {
                ObjectNode item = list.addObject().put("index", index);
                if (operation == Operation.COMPLETIONS) {
                    item.put("text", choice.text.toString());
                } else {
                    item.putObject("message").put("role", "assistant").put("content", choice.text.toString());
                }
                item.put("finish_reason", choice.finishReason.orElse("stop"));
            });
            usage.ifPresent(u -> whole.set("usage", u));
            return whole;
        }
    }
}
