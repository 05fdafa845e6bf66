package dev.arbor.platform.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * Reads a body that may be mostly media inline ({@code data:} URLs) as a stream, without holding it: each long
 * {@code data:} string is decoded from base64 on the way into a temporary file ({@link InlineMedia}), hashed as it is
 * written, and the JSON keeps only its header and a marker naming that file. The rest, small, is parsed as usual.
 */
final class InlineDataUrls {
    /** Shorter strings stay in the JSON: their copies cost nothing worth saving. */
    static final int LIFTED_FROM = 64 * 1024;
    /** A {@code data:} URL's header ends at its first comma, found this early or not at all. */
    private static final int MAX_HEADER = 4096;

    private static final int HEAD = 64;
    private static final byte[] DATA = "data:".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom RANDOM = new SecureRandom();

    private InlineDataUrls() {}

    /**
     * The body as Jackson would read it, with long {@code data:} URLs spooled to files in {@code folder}: each file's
     * key is added to {@code spooled} once written, for the request's end to delete. Every byte read goes into
     * {@code digest}. More than {@code bodyLimit} bytes is 413 {@code payload_too_large}, and so is more than
     * {@code restLimit} bytes besides the long {@code data:} URLs.
     */
    static byte[] read(
            InputStream in, long bodyLimit, long restLimit, Path folder, MessageDigest digest, List<String> spooled)
            throws IOException {
        var source = new Source(in, bodyLimit, digest);
        var rest = new Rest(restLimit);
        // a marker no sender can have guessed stands in for each lifted payload
        String nonce = HexFormat.of().formatHex(RANDOM.generateSeed(16));
        boolean inString = false;
        for (int b; (b = source.next()) >= 0; ) {
            rest.write(b);
            if (inString) {
                if (b == '\\') {
                    int escaped = source.next();
                    if (escaped < 0) {
                        break;
                    }
                    rest.write(escaped);
                } else if (b == '"') {
                    inString = false;
                }
                continue;
            }
            if (b != '"') {
                continue;
            }
            int matched = 0;
            while (matched < DATA.length) {
                int c = source.next();
                if (c < 0) {
                    break;
                }
                if (c != DATA[matched]) {
                    source.back();
                    break;
                }
                matched++;
            }
            if (matched < DATA.length) {
                rest.write(DATA, 0, matched);
                inString = true;
                continue;
            }
            var pending = new ByteArrayOutputStream();
            pending.writeBytes(DATA);
            boolean closed = false;
            while (pending.size() < LIFTED_FROM) {
                int c = source.next();
                if (c < 0) {
                    break;
                }
                if (c == '"') {
                    closed = true;
                    break;
                }
                pending.write(c);
                if (c == '\\') {
                    int escaped = source.next();
                    if (escaped < 0) {
                        break;
                    }
                    pending.write(escaped);
                }
            }
            if (pending.size() < LIFTED_FROM) {
                // a short data: URL stays in the JSON, and is media the limit of the rest does not count
                rest.media += pending.size();
                rest.write(pending.toByteArray(), 0, pending.size());
                if (closed) {
                    rest.write('"');
                }
                continue;
            }
            lift(pending.toByteArray(), source, rest, folder, nonce + "-" + spooled.size(), spooled);
        }
        return rest.toByteArray();
    }

    /** The body put back together from its parsed JSON: each marker replaced by its file's bytes in base64. */
    static byte[] rebuilt(ObjectNode json) {
        try {
            byte[] text = Json.mapper().writeValueAsBytes(json);
            byte[] marker = InlineMedia.MARKER.getBytes(StandardCharsets.US_ASCII);
            var body = new ByteArrayOutputStream();
            int from = 0;
            for (int at = indexOf(text, marker, 0); at >= 0; at = indexOf(text, marker, from)) {
                int end = at;
                while (text[end] != '"') {
                    end++;
                }
                body.write(text, from, at - from);
                var media = InlineMedia.of(new String(text, at, end - at, StandardCharsets.US_ASCII));
                if (media.isPresent()) {
                    try (OutputStream out = Base64.getEncoder().wrap(new Unclosed(body))) {
                        Files.copy(media.get().file(), out);
                    }
                }
                from = end;
            }
            body.write(text, from, text.length - from);
            return body.toByteArray();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Spools the rest of a long {@code data:} string (its first bytes read into {@code start}) and writes its header
     * and marker to the JSON in its place.
     */
    private static void lift(byte[] start, Source source, Rest rest, Path folder, String key, List<String> spooled)
            throws IOException {
        int comma = -1;
        for (int i = 0; i < Math.min(start.length, MAX_HEADER); i++) {
            if (start[i] == ',') {
                comma = i;
                break;
            }
        }
        // without a header there is nothing to decode: the marker after "data:" reads as no base64 URL
        int headerEnd = comma < 0 ? DATA.length : comma + 1;
        var payload = new JsonString(Arrays.copyOfRange(start, headerEnd, start.length), source);
        Files.createDirectories(folder);
        Path file = Files.createTempFile(folder, "inline-", ".partial");
        MessageDigest hash = sha256();
        long bytes = 0;
        boolean damaged = comma < 0;
        byte[] head = new byte[0];
        try {
            if (!damaged) {
                try (InputStream decoded = Base64.getDecoder().wrap(payload);
                        OutputStream out = new DigestOutputStream(Files.newOutputStream(file), hash)) {
                    byte[] buffer = new byte[64 * 1024];
                    for (int read; (read = decoded.read(buffer)) >= 0; ) {
                        if (head.length < HEAD) {
                            int taken = Math.min(HEAD - head.length, read);
                            byte[] longer = Arrays.copyOf(head, head.length + taken);
                            System.arraycopy(buffer, 0, longer, head.length, taken);
                            head = longer;
                        }
                        out.write(buffer, 0, read);
                        bytes += read;
                    }
                } catch (IOException e) {
                    if (source.failed) {
                        throw e;
                    }
                    damaged = true;
                }
            }
            // what follows the base64's padding, or what damaged it, is read to the string's end
            while (payload.read() >= 0) {
                damaged = true;
            }
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(file);
            throw e;
        }
        spooled.add(key);
        InlineMedia.register(
                key,
                new InlineMedia(
                        file, HexFormat.of().formatHex(hash.digest()), bytes, payload.characters, damaged, head));
        rest.write(start, 0, headerEnd);
        if (payload.invalid) {
            // what the body holds is no JSON string (a control character or a bad escape): Jackson says so
            rest.write(1);
        }
        byte[] marker = (InlineMedia.MARKER + key).getBytes(StandardCharsets.US_ASCII);
        rest.write(marker, 0, marker.length);
        if (!payload.unfinished) {
            rest.write('"');
        }
    }

    private static int indexOf(byte[] text, byte[] part, int from) {
        outer:
        for (int i = from; i <= text.length - part.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (text[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The body's bytes, read in blocks, counted against the limit and hashed as they come. */
    private static final class Source {
        private final InputStream in;
        private final long limit;
        private final MessageDigest digest;
        private final byte[] buffer = new byte[64 * 1024];
        private int next;
        private int length;
        private long total;
        private boolean failed;

        Source(InputStream in, long limit, MessageDigest digest) {
            this.in = in;
            this.limit = limit;
            this.digest = digest;
        }

        int next() throws IOException {
            if (next == length) {
                int read;
                try {
                    read = in.read(buffer);
                } catch (IOException e) {
                    failed = true;
                    throw e;
                }
                if (read < 0) {
                    return -1;
                }
                total += read;
                if (total > limit) {
                    throw Requests.tooLarge(limit);
                }
                digest.update(buffer, 0, read);
                next = 0;
                length = read;
            }
            return buffer[next++] & 0xff;
        }

        /** Gives back the byte just read. */
        void back() {
            next--;
        }
    }

    /** The JSON around the lifted strings, held to its own limit but for the media it holds. */
    private static final class Rest extends ByteArrayOutputStream {
        private final long limit;
        private long media;

        Rest(long limit) {
            super(8 * 1024);
            this.limit = limit;
        }

        @Override
        public synchronized void write(int b) {
            super.write(b);
            check();
        }

        @Override
        public synchronized void write(byte[] bytes, int offset, int length) {
            super.write(bytes, offset, length);
            check();
        }

        private void check() {
            if (count - media > limit) {
                throw ApiException.of(
                        ErrorCode.PAYLOAD_TOO_LARGE,
                        "The request body is larger than " + limit + " bytes without its inline media (data: URLs).");
            }
        }
    }

    /** The characters of a JSON string, unescaped, to its closing quote. */
    private static final class JsonString extends InputStream {
        private final byte[] start;
        private final Source source;
        private int fromStart;
        private boolean ended;
        long characters;
        /** Ended without its closing quote. */
        boolean unfinished;
        /** Held what a JSON string may not. */
        boolean invalid;

        JsonString(byte[] start, Source source) {
            this.start = start;
            this.source = source;
        }

        private int raw() throws IOException {
            return fromStart < start.length ? start[fromStart++] & 0xff : source.next();
        }

        @Override
        public int read() throws IOException {
            if (ended) {
                return -1;
            }
            int c = raw();
            if (c < 0 || c == '"') {
                ended = true;
                unfinished = c < 0;
                return -1;
            }
            if (c < 0x20) {
                invalid = true;
            } else if (c == '\\') {
                c = escaped();
            }
            characters++;
            return c;
        }

        private int escaped() throws IOException {
            int c = raw();
            return switch (c) {
                case '"', '\\', '/' -> c;
                case 'b' -> '\b';
                case 'f' -> '\f';
                case 'n' -> '\n';
                case 'r' -> '\r';
                case 't' -> '\t';
                case 'u' -> {
                    int value = 0;
                    for (int i = 0; i < 4; i++) {
                        int digit = Character.digit(raw(), 16);
                        if (digit < 0) {
                            invalid = true;
                        }
                        value = value * 16 + Math.max(digit, 0);
                    }
                    // past ASCII it is no base64 character either way
                    yield Math.min(value, 0xff);
                }
                default -> {
                    invalid = true;
                    yield Math.max(c, 0);
                }
            };
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            int count = 0;
            while (count < length) {
                int c = read();
                if (c < 0) {
                    break;
                }
                buffer[offset + count++] = (byte) c;
            }
            return count == 0 ? -1 : count;
        }
    }

    /** The body being rebuilt, which the base64 encoder's close must not close. */
    private static final class Unclosed extends OutputStream {
        private final OutputStream out;

        Unclosed(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            out.write(bytes, offset, length);
        }
    }
}
