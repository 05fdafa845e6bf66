package dev.arbor.platform.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Parses a body that is mostly media inline ({@code data:} URLs) without Jackson's copies of each: Jackson builds a
 * long string in two-byte segments, then joins them, then makes the string, five times the URL's bytes at once (a
 * 200 MB image sent inline took well over a gigabyte). Each long {@code data:} string value is lifted out of the
 * bytes first, the small rest parsed, and the string put back made once from the body's bytes. Only a value of
 * printable ASCII without escapes is lifted (what base64 is), so the result is what parsing the whole body gives.
 */
final class InlineDataUrls {
    /** Shorter strings are left to Jackson: its copies of them cost nothing worth saving. */
    private static final int LIFTED_FROM = 64 * 1024;

    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private InlineDataUrls() {}

    /** The body as a JSON object, as {@link Json#parseObject} reads it. */
    static ObjectNode parseObject(byte[] body) {
        List<Span> lifted = lift(body);
        if (lifted.isEmpty()) {
            return Json.parseObject(body);
        }
        // a marker no sender can have guessed stands in for each lifted string
        String nonce = HexFormat.of().formatHex(RANDOM.generateSeed(16));
        var rest = new ByteArrayOutputStream();
        int from = 0;
        for (int i = 0; i < lifted.size(); i++) {
            Span span = lifted.get(i);
            rest.write(body, from, span.start() - from);
            rest.writeBytes((nonce + ":" + i).getBytes(StandardCharsets.US_ASCII));
            from = span.end();
        }
        rest.write(body, from, body.length - from);
        ObjectNode json = Json.parseObject(rest.toByteArray());
        putBack(json, nonce + ":", body, lifted);
        return json;
    }

    /** Where a string value lies in the body: its characters, without the quotes. */
    private record Span(int start, int end) {}

    private static List<Span> lift(byte[] body) {
        var spans = new ArrayList<Span>();
        boolean inString = false;
        for (int i = 0; i < body.length; i++) {
            byte b = body[i];
            if (inString) {
                if (b == '\\') {
                    i++;
                } else if (b == '"') {
                    inString = false;
                }
                continue;
            }
            if (b != '"') {
                continue;
            }
            int end = longDataUrlEnd(body, i + 1);
            if (end > 0 && isValue(body, end + 1)) {
                spans.add(new Span(i + 1, end));
                i = end;
            } else {
                inString = true;
            }
        }
        return spans;
    }

    /** Where the string starting here ends (its closing quote) when it is a long, plain {@code data:} URL; else -1. */
    private static int longDataUrlEnd(byte[] body, int start) {
        if (body.length - start < LIFTED_FROM || !startsWithData(body, start)) {
            return -1;
        }
        for (int i = start; i < body.length; i++) {
            byte b = body[i];
            if (b == '"') {
                return i - start >= LIFTED_FROM ? i : -1;
            }
            if (b < 0x20 || b > 0x7e || b == '\\') {
                return -1;
            }
        }
        return -1;
    }

    private static boolean startsWithData(byte[] body, int start) {
        for (int i = 0; i < DATA.length; i++) {
            if (body[start + i] != DATA[i]) {
                return false;
            }
        }
        return true;
    }

    /** Whether a string ending just before {@code next} is a value, not an object's key. */
    private static boolean isValue(byte[] body, int next) {
        for (int i = next; i < body.length; i++) {
            byte b = body[i];
            if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                return b != ':';
            }
        }
        return true;
    }

    private static void putBack(JsonNode node, String marker, byte[] body, List<Span> lifted) {
        if (node instanceof ObjectNode object) {
            for (Map.Entry<String, JsonNode> field : object.properties()) {
                lifted(field.getValue(), marker, body, lifted)
                        .ifPresentOrElse(field::setValue, () -> putBack(field.getValue(), marker, body, lifted));
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                int index = i;
                lifted(array.get(i), marker, body, lifted)
                        .ifPresentOrElse(
                                text -> array.set(index, text), () -> putBack(array.get(index), marker, body, lifted));
            }
        }
    }

    private static Optional<JsonNode> lifted(JsonNode node, String marker, byte[] body, List<Span> lifted) {
        if (!node.isTextual() || !node.textValue().startsWith(marker)) {
            return Optional.empty();
        }
        Span span = lifted.get(Integer.parseInt(node.textValue().substring(marker.length())));
        // printable ASCII: one byte a character, and the string keeps them one byte each
        return Optional.of(TextNode.valueOf(
                new String(body, span.start(), span.end() - span.start(), StandardCharsets.ISO_8859_1)));
    }
}
