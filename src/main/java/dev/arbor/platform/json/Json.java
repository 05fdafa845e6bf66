package dev.arbor.platform.json;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.OptionalLong;

/** The one JSON configuration of the server: strict on input, plain on output. */
public final class Json {
    /** Deeper documents are refused: no request of ours nests this far, and deep nesting is a cheap attack. */
    static final int MAX_DEPTH = 200;

    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_DEPTH)
                            .maxNumberLength(400)
                            // the body limits bound strings: a data URL may be as long as its operation's body
                            .maxStringLength(Integer.MAX_VALUE)
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.INCLUDE_SOURCE_IN_LOCATION)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private Json() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static ObjectNode object() {
        return MAPPER.createObjectNode();
    }

    public static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String writeString(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts a time kept in milliseconds as the API's whole seconds, or null where there is no time. */
    public static void putSeconds(Map<String, Object> json, String field, OptionalLong millis) {
        json.put(field, millis.isPresent() ? millis.getAsLong() / 1000 : null);
    }

    /** Parses any JSON document; malformed input is a plain exception, for stored data we wrote ourselves. */
    public static JsonNode read(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #read(String)} for UTF-8 bytes, without decoding them to a string first. */
    public static JsonNode read(byte[] json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Parses a request body that must be a JSON object. Anything else is 400 {@code invalid_json} with a message that
     * says what was wrong and where.
     */
    public static ObjectNode parseObject(byte[] body) {
        if (body.length == 0 || isBlank(body)) {
            throw ApiException.of(ErrorCode.INVALID_JSON, "The request needs a JSON object body; none was sent.");
        }
        if (!isUtf8(body)) {
            throw ApiException.of(
                    ErrorCode.INVALID_JSON,
                    "The body is not valid UTF-8: it holds a malformed " + "or overlong byte sequence.");
        }
        JsonNode node;
        try {
            node = MAPPER.readTree(body);
        } catch (JacksonException e) {
            throw ApiException.of(ErrorCode.INVALID_JSON, "The body is not valid JSON: " + describe(e));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (node == null || !node.isObject()) {
            throw ApiException.of(ErrorCode.INVALID_JSON, "The body must be a JSON object, not " + kind(node) + ".");
        }
        return (ObjectNode) node;
    }

    /** RFC 7396: objects merge, {@code null} removes a key, anything else replaces. */
    public static JsonNode mergePatch(JsonNode target, JsonNode patch) {
        if (!patch.isObject()) {
            return patch;
        }
        ObjectNode result = target != null && target.isObject() ? ((ObjectNode) target).deepCopy() : object();
        for (var entries = patch.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            if (entry.getValue().isNull()) {
                result.remove(entry.getKey());
            } else {
                result.set(entry.getKey(), mergePatch(result.get(entry.getKey()), entry.getValue()));
            }
        }
        return result;
    }

    /**
     * Whether the bytes are well-formed UTF-8 in the strict sense (shortest forms, no surrogates): the JSON parser
     * decodes an overlong form such as {@code C0 AF} to {@code /}, which checks made on the text could then miss.
     */
    private static boolean isUtf8(byte[] body) {
        int firstNonAscii = 0;
        while (firstNonAscii < body.length && body[firstNonAscii] >= 0) {
            firstNonAscii++;
        }
        if (firstNonAscii == body.length) {
            return true;
        }
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(body, firstNonAscii, body.length - firstNonAscii));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static String kind(JsonNode node) {
        if (node == null || node.isMissingNode()) {
            return "nothing";
        }
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
        };
    }

    private static String describe(JacksonException e) {
        String message = e.getOriginalMessage();
        if (message.length() > 200) {
            message = message.substring(0, 200) + "...";
        }
        var location = e.getLocation();
        if (location != null && location.getLineNr() > 0) {
            return message + " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        }
        return message;
    }

    private static boolean isBlank(byte[] body) {
        for (byte b : body) {
            if (b != ' ' && b != '\n' && b != '\r' && b != '\t') {
                return false;
            }
        }
        return true;
    }
}
