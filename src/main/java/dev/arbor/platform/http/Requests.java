package dev.arbor.platform.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
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
    /** Where the media a body holds inline are decoded to while it is read: the data folder's {@code tmp}. */
    public static final String SPOOL_FOLDER = "arbor.spool_folder";

    private static final String STREAMED = "arbor.streamed_body";
    private static final String SPOOLED = "arbor.spooled_media";

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
                "Send the token as `Authorization: Bearer <token>`; " + "this Authorization header has " + sent + ".");
    }

    /**
     * The raw body, read once and at most up to the body limit (413 {@code payload_too_large} beyond it). An
     * operation that takes media inline read its body as a stream: this puts it back together, its media included.
     */
    public static byte[] body(Context ctx) {
        byte[] cached = ctx.attribute(BODY);
        if (cached != null) {
            return cached;
        }
        if (streams(ctx)) {
            return InlineDataUrls.rebuilt(streamed(ctx, InlineDataUrls.sha256()));
        }
        Long limit = ctx.attribute(BODY_LIMIT);
        byte[] bytes = readBounded(ctx, limit == null ? Long.MAX_VALUE : limit);
        ctx.attribute(BODY, bytes);
        return bytes;
    }

    /**
     * The SHA-256 (in hex) of {@code head} followed by the body, read as {@link #jsonObject} reads it: for a body
     * with media inline, hashed as it streams by.
     */
    public static String sha256WithBody(Context ctx, byte[] head) {
        MessageDigest digest = InlineDataUrls.sha256();
        digest.update(head);
        if (streams(ctx)) {
            if (ctx.attribute(STREAMED) != null) {
                throw new IllegalStateException("the body was read before it was hashed");
            }
            try {
                streamed(ctx, digest);
            } catch (ApiException e) {
                if (e.code() != ErrorCode.INVALID_JSON) {
                    throw e;
                }
                // the handler says so when it reads the body
            }
        } else {
            digest.update(body(ctx));
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /**
     * The body as a JSON object, or 400 {@code invalid_json}. An operation that takes media inline may exceed the
     * server's body limit only by its {@code data:} URLs: 413 {@code payload_too_large} when the rest exceeds it;
     * each long one is decoded to a file as the body is read (see {@link InlineMedia}).
     */
    public static ObjectNode jsonObject(Context ctx) {
        if (streams(ctx)) {
            return streamed(ctx, InlineDataUrls.sha256()).deepCopy();
        }
        return Json.parseObject(body(ctx));
    }

    /** Deletes the files of media the body held inline: the request is over. */
    public static void releaseInlineMedia(Context ctx) {
        List<String> spooled = ctx.attribute(SPOOLED);
        if (spooled != null) {
            ctx.attribute(SPOOLED, null);
            spooled.forEach(InlineMedia::release);
        }
    }

    private static boolean streams(Context ctx) {
        return ctx.attribute(LIMIT_WITHOUT_MEDIA) != null && ctx.attribute(SPOOL_FOLDER) != null;
    }

    /** The body read as a stream, once: the JSON with markers for its long data: URLs, or why it is none. */
    private static ObjectNode streamed(Context ctx, MessageDigest digest) {
        Object read = ctx.attribute(STREAMED);
        if (read == null) {
            read = readStreamed(ctx, digest);
            ctx.attribute(STREAMED, read);
        }
        if (read instanceof RuntimeException failure) {
            throw failure;
        }
        return (ObjectNode) read;
    }

    private static Object readStreamed(Context ctx, MessageDigest digest) {
        Long limit = ctx.attribute(BODY_LIMIT);
        Long restLimit = ctx.attribute(LIMIT_WITHOUT_MEDIA);
        Path folder = ctx.attribute(SPOOL_FOLDER);
        var spooled = new ArrayList<String>();
        ctx.attribute(SPOOLED, spooled);
        byte[] rest;
        try (InputStream in = ctx.req().getInputStream()) {
            rest = InlineDataUrls.read(in, limit == null ? Long.MAX_VALUE : limit, restLimit, folder, digest, spooled);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            return Json.parseObject(rest);
        } catch (ApiException e) {
            return e;
        }
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
        return ApiException.of(ErrorCode.PAYLOAD_TOO_LARGE, "The request body is larger than " + limit + " bytes.");
    }
}
