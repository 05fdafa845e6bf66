package dev.arbor.platform.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/** What the platform learned about a request before its handler runs, kept on the request's context. */
public final class Requests {
    // the server (platform.http.server) sets these before the handler runs; handlers read them through the methods
    public static final String ID = "arbor.request_id";
    public static final String STARTED = "arbor.started_nanos";
    public static final String CLIENT = "arbor.client_address";
    static final String BODY = "arbor.body";
    public static final String BODY_LIMIT = "arbor.body_limit";
    /** The server's body limit, set where an operation's own limit is higher only for the media it takes inline. */
    public static final String LIMIT_WITHOUT_MEDIA = "arbor.limit_without_media";

    private static final Pattern AUTH_SCHEME = Pattern.compile("[A-Za-z][A-Za-z0-9-]{0,19}");

    private Requests() {}

    public static String id(Context ctx) {
        String id = ctx.attribute(ID);
        return id == null ? "" : id;
    }

    /** When the server began the request, in {@link System#nanoTime()} units. */
    public static long startedNanos(Context ctx) {
        Long started = ctx.attribute(STARTED);
        return started == null ? System.nanoTime() : started;
    }

    /**
     * The caller's address: the socket peer, or the forwarded client when the peer is a trusted proxy; empty when a
     * trusted proxy named no client that is an address.
     */
    public static Optional<InetAddress> clientAddress(Context ctx) {
        Optional<InetAddress> address = ctx.attribute(CLIENT);
        return address == null ? Optional.empty() : address;
    }

    public static boolean isLocalCaller(Context ctx) {
        return clientAddress(ctx).map(InetAddress::isLoopbackAddress).orElse(false);
    }

    public static boolean isWrite(HandlerType method) {
        return method.equals(HandlerType.POST)
                || method.equals(HandlerType.PUT)
                || method.equals(HandlerType.PATCH)
                || method.equals(HandlerType.DELETE);
    }

    /**
     * The credential of an {@code Authorization} header: what follows {@code Bearer}. Another scheme, or a bare
     * credential, is 401 {@code invalid_api_key} saying that {@code Authorization: Bearer <token>} is expected.
     */
    public static String bearer(String authorization) {
        String value = authorization.trim();
        int space = value.indexOf(' ');
        String scheme = space < 0 ? "" : value.substring(0, space);
        if (scheme.equalsIgnoreCase("Bearer")) {
            return value.substring(space + 1).trim();
        }
        // the scheme is named back only when it looks like one, so that a bare secret is never repeated
        String sent = AUTH_SCHEME.matcher(scheme).matches() ? "the " + scheme + " scheme" : "no scheme";
        throw ApiException.of(
                ErrorCode.INVALID_API_KEY,
                null,
                "Send the token as `Authorization: Bearer <token>`; " + "this Authorization header has " + sent + ".");
    }

    /** The raw body, read once and at most up to the body limit (413 {@code payload_too_large} beyond it). */
    public static byte[] body(Context ctx) {
        byte[] cached = ctx.attribute(BODY);
        if (cached != null) {
            return cached;
        }
        Long limit = ctx.attribute(BODY_LIMIT);
        byte[] bytes = readBounded(ctx, limit == null ? Long.MAX_VALUE : limit);
        ctx.attribute(BODY, bytes);
        return bytes;
    }

    /**
     * The body as a JSON object, or 400 {@code invalid_json}. An operation that takes media inline may exceed the
     * server's body limit only by its {@code data:} URLs: 413 {@code payload_too_large} when the rest exceeds it.
     */
    public static ObjectNode jsonObject(Context ctx) {
        byte[] body = body(ctx);
        Long limit = ctx.attribute(LIMIT_WITHOUT_MEDIA);
        ObjectNode json =
                limit != null && body.length > limit ? InlineDataUrls.parseObject(body) : Json.parseObject(body);
        if (limit != null && body.length > limit && body.length - inlineMediaLength(json) > limit) {
            throw ApiException.of(
                    ErrorCode.PAYLOAD_TOO_LARGE,
                    null,
                    "The request body is larger than " + limit + " bytes without its inline media (data: URLs).");
        }
        return json;
    }

    /** The characters of every {@code data:} URL in a JSON value (base64, so one byte each in the body). */
    private static long inlineMediaLength(JsonNode node) {
        if (node.isTextual()) {
            return node.textValue().startsWith("data:") ? node.textValue().length() : 0;
        }
        long total = 0;
        for (JsonNode child : node) {
            total += inlineMediaLength(child);
        }
        return total;
    }

    private static byte[] readBounded(Context ctx, long limit) {
        try (InputStream in = ctx.req().getInputStream()) {
            long declared = ctx.req().getContentLengthLong();
            if (declared >= 0 && declared <= limit && declared < Integer.MAX_VALUE - 8) {
                // read into one array of its size, not into pieces then copied whole (twice a large body at once)
                byte[] bytes = new byte[(int) declared];
                int read = in.readNBytes(bytes, 0, bytes.length);
                return read == bytes.length ? bytes : Arrays.copyOf(bytes, read);
            }
            byte[] bytes = in.readNBytes((int) Math.min(limit + 1, Integer.MAX_VALUE - 8));
            if (bytes.length > limit) {
                throw tooLarge(limit);
            }
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static ApiException tooLarge(long limit) {
        return ApiException.of(
                ErrorCode.PAYLOAD_TOO_LARGE, null, "The request body is larger than " + limit + " bytes.");
    }
}
