package dev.arbor.inference.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The few top-level fields of an OpenAI-compatible JSON object that routing reads, found in one pass of the
 * streaming parser over the bytes as they are (no tree, no copy): where {@code model} is, so that it can be replaced
 * in place, and {@code stream} and {@code usage}. The document is checked whole on the way: one that is not a JSON
 * object throws.
 *
 * @param modelStart the offset of {@code model}'s value (its opening quote) from the start of the scanned bytes, -1
 *     when there is none
 * @param modelEnd the byte offset just after that value
 * @param model its text, when it is a string
 * @param stream {@code stream}, when it is true or false
 * @param error the message of a top-level {@code error} (an error in OpenAI's shape, or any other non-null value),
 *     when there is one: an answer or a stream's event that is an error whatever its status
 * @param finished whether a choice has a {@code finish_reason}: the answer (or the stream) says it is complete
 */
public record TopLevel(
        int modelStart,
        int modelEnd,
        Optional<String> model,
        JsonToken modelToken,
        Optional<Boolean> stream,
        JsonToken streamToken,
        Usage usage,
        Optional<String> error,
        boolean finished) {

    /**
     * The token counts of an answer's {@code usage}; empty where the upstream sent none.
     *
     * @param cachedTokens how many of the prompt's tokens the provider read from its cache
     *     ({@code prompt_tokens_details.cached_tokens})
     */
    public record Usage(OptionalLong promptTokens, OptionalLong completionTokens, OptionalLong cachedTokens) {
        public static final Usage NONE = new Usage(OptionalLong.empty(), OptionalLong.empty());

        public Usage(OptionalLong promptTokens, OptionalLong completionTokens) {
            this(promptTokens, completionTokens, OptionalLong.empty());
        }

        boolean isEmpty() {
            return promptTokens.isEmpty() && completionTokens.isEmpty();
        }
    }

    /** Thrown for bytes that are not one JSON object. */
    public static final class NotAnObject extends Exception {
        NotAnObject(String message) {
            super(message, null, false, false);
        }
    }

    public static TopLevel scan(byte[] bytes, int offset, int length) throws NotAnObject {
        int modelStart = -1;
        int modelEnd = -1;
        Optional<String> model = Optional.empty();
        JsonToken modelToken = JsonToken.NOT_AVAILABLE;
        Optional<Boolean> stream = Optional.empty();
        JsonToken streamToken = JsonToken.NOT_AVAILABLE;
        Usage usage = Usage.NONE;
        Optional<String> error = Optional.empty();
        boolean finished = false;
        try (JsonParser parser = Json.mapper().getFactory().createParser(bytes, offset, length)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new NotAnObject("it is not a JSON object");
            }
            for (JsonToken token = parser.nextToken(); token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
                String name = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (name) {
                    case "model" -> {
                        modelToken = value;
                        if (value == JsonToken.VALUE_STRING) {
                            modelStart = (int) parser.currentTokenLocation().getByteOffset();
                            model = Optional.of(parser.getText());
                            modelEnd = (int) parser.currentLocation().getByteOffset();
                        } else {
                            parser.skipChildren();
                        }
                    }
                    case "stream" -> {
                        streamToken = value;
                        if (value == JsonToken.VALUE_TRUE || value == JsonToken.VALUE_FALSE) {
                            stream = Optional.of(value == JsonToken.VALUE_TRUE);
                        } else {
                            parser.skipChildren();
                        }
                    }
                    case "usage" -> usage = value == JsonToken.START_OBJECT ? usage(parser) : skip(parser);
                    case "error" -> error = error(parser, value);
                    case "choices" -> finished = value == JsonToken.START_ARRAY && finished(parser);
                    default -> parser.skipChildren();
                }
            }
            if (parser.currentToken() != JsonToken.END_OBJECT || parser.nextToken() != null) {
                throw new NotAnObject("more follows the JSON object");
            }
        } catch (IOException e) {
            throw new NotAnObject(e.getMessage() == null ? "it is not JSON" : firstLine(e.getMessage()));
        }
        return new TopLevel(modelStart, modelEnd, model, modelToken, stream, streamToken, usage, error, finished);
    }

    /** An error's message: its {@code message} when it is an object with one, its text, or what it is. */
    private static Optional<String> error(JsonParser parser, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return Optional.empty();
        }
        if (value == JsonToken.VALUE_STRING) {
            return Optional.of(parser.getText());
        }
        String message = "an error without a message";
        if (value == JsonToken.START_OBJECT) {
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken field = parser.nextToken();
                if (name.equals("message") && field == JsonToken.VALUE_STRING) {
                    message = parser.getText();
                } else {
                    parser.skipChildren();
                }
            }
            return Optional.of(message);
        }
        parser.skipChildren();
        return Optional.of(message);
    }

    /** Whether a choice of the array the parser is at has a non-null {@code finish_reason}; reads to its end. */
    private static boolean finished(JsonParser parser) throws IOException {
        boolean finished = false;
        for (JsonToken item = parser.nextToken();
                item != null && item != JsonToken.END_ARRAY;
                item = parser.nextToken()) {
            if (item != JsonToken.START_OBJECT) {
                parser.skipChildren();
                continue;
            }
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken field = parser.nextToken();
                if (name.equals("finish_reason") && field == JsonToken.VALUE_STRING) {
                    finished = true;
                } else {
                    parser.skipChildren();
                }
            }
        }
        return finished;
    }

    private static Usage skip(JsonParser parser) throws IOException {
        parser.skipChildren();
        return Usage.NONE;
    }

    private static Usage usage(JsonParser parser) throws IOException {
        OptionalLong prompt = OptionalLong.empty();
        OptionalLong completion = OptionalLong.empty();
        OptionalLong cached = OptionalLong.empty();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_NUMBER_INT && name.equals("prompt_tokens")) {
                prompt = OptionalLong.of(parser.getLongValue());
            } else if (value == JsonToken.VALUE_NUMBER_INT && name.equals("completion_tokens")) {
                completion = OptionalLong.of(parser.getLongValue());
            } else if (value == JsonToken.START_OBJECT && name.equals("prompt_tokens_details")) {
                cached = cachedTokens(parser);
            } else {
                parser.skipChildren();
            }
        }
        return new Usage(prompt, completion, cached);
    }

    /** {@code cached_tokens} of a {@code prompt_tokens_details} object, the parser at its start; read to its end. */
    private static OptionalLong cachedTokens(JsonParser parser) throws IOException {
        OptionalLong cached = OptionalLong.empty();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if (value == JsonToken.VALUE_NUMBER_INT && name.equals("cached_tokens") && parser.getLongValue() >= 0) {
                cached = OptionalLong.of(parser.getLongValue());
            } else {
                parser.skipChildren();
            }
        }
        return cached;
    }

    private static String firstLine(String message) {
        int end = message.indexOf('\n');
        return end < 0 ? message : message.substring(0, end);
    }

    /**
     * The bytes with {@code model}'s value replaced by {@code quotedModel} (a JSON string, quotes included); the same
     * bytes when there is no {@code model} string.
     */
    public byte[] withModel(byte[] bytes, int offset, int length, byte[] quotedModel) {
        if (modelStart < 0) {
            return offset == 0 && length == bytes.length ? bytes : Arrays.copyOfRange(bytes, offset, offset + length);
        }
        byte[] out = new byte[length - (modelEnd - modelStart) + quotedModel.length];
        System.arraycopy(bytes, offset, out, 0, modelStart);
        System.arraycopy(quotedModel, 0, out, modelStart, quotedModel.length);
        System.arraycopy(bytes, offset + modelEnd, out, modelStart + quotedModel.length, length - modelEnd);
        return out;
    }
}
