package dev.arbor.inference.openai;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * The bounds of an embeddings request's {@code input}, OpenAI's: at most {@value #MAX_INPUTS} inputs, each a text of at
 * most {@value #MAX_INPUT_CHARS} characters or at most {@value #MAX_INPUT_TOKENS} token ids. Checked before any
 * endpoint is asked, so that no request holds a model for minutes; the first input past a bound is named
 * ({@code input}, or {@code input[i]}). What {@code input} is otherwise (its types) is the endpoint's to judge.
 */
final class EmbeddingInputs {
    static final int MAX_INPUTS = 2_048;
    /** OpenAI's 8,192 tokens per input, at up to eight characters a token. */
    static final int MAX_INPUT_CHARS = 65_536;

    static final int MAX_INPUT_TOKENS = 8_192;

    private EmbeddingInputs() {}

    /** The first bound {@code body}'s {@code input} goes past; the body is a JSON object already. */
    static Optional<Problem> check(byte[] body) {
        try (JsonParser parser = Json.mapper().getFactory().createParser(body)) {
            parser.nextToken(); // the object's start
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                if (field.equals("input")) {
                    return checkInput(parser, value);
                }
                parser.skipChildren();
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("a body scanned as JSON reads again", e);
        }
    }

    private static Optional<Problem> checkInput(JsonParser parser, JsonToken value) throws IOException {
        if (value == JsonToken.VALUE_STRING) {
            return text(parser, "input");
        }
        if (value != JsonToken.START_ARRAY) {
            return Optional.empty();
        }
        int count = 0;
        boolean tokenIds = false;
        for (JsonToken item = parser.nextToken(); item != JsonToken.END_ARRAY; item = parser.nextToken()) {
            String at = ParamPath.index("input", count);
            count++;
            if (item == JsonToken.VALUE_NUMBER_INT) {
                // one input given as token ids: the array is the input
                tokenIds = true;
                if (count > MAX_INPUT_TOKENS) {
                    return tooManyTokens("input");
                }
                continue;
            }
            if (count > MAX_INPUTS && !tokenIds) {
                return Optional.of(new Problem(
                        ErrorCode.INVALID_FIELD,
                        "input",
                        "`input` may hold at most " + MAX_INPUTS + " inputs in one request; send the rest in "
                                + "further requests."));
            }
            Optional<Problem> problem = switch (item) {
                case VALUE_STRING -> text(parser, at);
                case START_ARRAY -> tokens(parser, at);
                default -> {
                    parser.skipChildren();
                    yield Optional.empty();
                }
            };
            if (problem.isPresent()) {
                return problem;
            }
        }
        return Optional.empty();
    }

    private static Optional<Problem> text(JsonParser parser, String param) throws IOException {
        int length = parser.getTextLength();
        if (length <= MAX_INPUT_CHARS) {
            return Optional.empty();
        }
        return Optional.of(new Problem(
                ErrorCode.INVALID_FIELD,
                param,
                "`" + param + "` is " + length + " characters long; an input may be at most " + MAX_INPUT_CHARS
                        + " characters."));
    }

    private static Optional<Problem> tokens(JsonParser parser, String param) throws IOException {
        int count = 0;
        for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken()) {
            parser.skipChildren();
            if (++count > MAX_INPUT_TOKENS) {
                return tooManyTokens(param);
            }
        }
        return Optional.empty();
    }

    private static Optional<Problem> tooManyTokens(String param) {
        return Optional.of(new Problem(
                ErrorCode.INVALID_FIELD,
                param,
                "`" + param + "` holds more than " + MAX_INPUT_TOKENS + " token ids; an input may be at most "
                        + MAX_INPUT_TOKENS + " tokens."));
    }
}
