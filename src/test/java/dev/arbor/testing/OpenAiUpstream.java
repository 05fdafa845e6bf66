package dev.arbor.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A scripted OpenAI-compatible API on loopback ({@code /v1/chat/completions}, {@code /v1/completions},
 * {@code /v1/embeddings}), on a raw socket so that a test can make it fail as real endpoints do: answer 429 or 500,
 * hang, reset the connection, send something that is not JSON, stream chunks (slowly, or waiting for the test, or
 * dying half-way). Each request takes the next scripted reply, or the default one ({@link Reply#ok()} unless set).
 * It keeps every request it was sent.
 */
public final class OpenAiUpstream implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the endpoint does with one request. */
    public sealed interface Reply {
        /** A completion (or embeddings, on that path) naming the model it was sent, with usage. */
        static Reply ok() {
            return new Answer(Duration.ZERO);
        }

        /** {@link #ok()}, after a pause. */
        static Reply okAfter(Duration delay) {
            return new Answer(delay);
        }

        /** An error in OpenAI's shape. */
        static Reply error(int status, String code) {
            return new Error(status, code);
        }

        static Reply hang() {
            return new Hang();
        }

        /** A TCP reset before any answer. */
        static Reply reset() {
            return new Reset();
        }

        /** 200 with a body that is not JSON. */
        static Reply invalidJson() {
            return new Invalid();
        }

        /** Server-sent chunks ({@code "part0 "}, {@code "part1 "}, ...), a pause between them, then {@code [DONE]}. */
        static Reply stream(int chunks, Duration between) {
            return new Stream(parts(chunks), between, new CountDownLatch(0), Ending.DONE);
        }

        /** Server-sent chunks with these texts, one a chunk, then {@code [DONE]}. */
        static Reply streamOf(String... texts) {
            return new Stream(List.of(texts), Duration.ZERO, new CountDownLatch(0), Ending.DONE);
        }

        /** The first chunk, then the rest only once {@code release} is counted down. */
        static Reply streamHeldAfterFirst(int chunks, CountDownLatch release) {
            return new Stream(parts(chunks), Duration.ZERO, release, Ending.DONE);
        }

        /** Chunks, then a reset instead of {@code [DONE]}. */
        static Reply streamThenReset(int chunks) {
            return new Stream(parts(chunks), Duration.ZERO, new CountDownLatch(0), Ending.RESET);
        }

        /** Chunks, then nothing more while the connection stays open. */
        static Reply streamThenHang(int chunks) {
            return new Stream(parts(chunks), Duration.ZERO, new CountDownLatch(0), Ending.HANG);
        }

        /** The answer's head (a stream's when the request streams), then nothing while the connection stays open. */
        static Reply headersThenNothing() {
            return new HeadersOnly();
        }

        /** Chunks, then one that is not JSON, then {@code [DONE]}. */
        static Reply streamThenMalformed(int chunks) {
            return new Stream(parts(chunks), Duration.ZERO, new CountDownLatch(0), Ending.MALFORMED);
        }

        /** Chunks, then an error event in OpenAI's shape (then {@code [DONE]}, which must not reach the caller). */
        static Reply streamThenErrorEvent(int chunks) {
            return new Stream(parts(chunks), Duration.ZERO, new CountDownLatch(0), Ending.ERROR_EVENT);
        }

        /** 200 whose body is an error in OpenAI's shape (a stream request gets it too, not a stream). */
        static Reply errorIn200() {
            return new ErrorIn200();
        }

        /** 429 with {@code retry-after} in seconds. */
        static Reply rateLimited(int retryAfterSeconds) {
            return new RateLimited(retryAfterSeconds);
        }

        /** A completion's head with its full length, half of its body, then the connection closed. */
        static Reply closedMidBody() {
            return new ClosedMidBody();
        }

        private static List<String> parts(int chunks) {
            return java.util.stream.IntStream.range(0, chunks)
                    .mapToObj(i -> "part" + i + " ")
                    .toList();
        }
    }

    record Answer(Duration delay) implements Reply {}

    record Error(int status, String code) implements Reply {}

    record Hang() implements Reply {}

    record Reset() implements Reply {}

    record Invalid() implements Reply {}

    record HeadersOnly() implements Reply {}

    record ErrorIn200() implements Reply {}

    record RateLimited(int retryAfterSeconds) implements Reply {}

    record ClosedMidBody() implements Reply {}

    record Stream(List<String> parts, Duration between, CountDownLatch release, Ending ending) implements Reply {}

    /**
     * How a stream ends: {@code [DONE]}, a reset, never, or a chunk that is not JSON or an error event (each then
     * {@code [DONE]}).
     */
    enum Ending {
        DONE,
        RESET,
        HANG,
        MALFORMED,
        ERROR_EVENT
    }

    /** One request as it arrived. */
    public record Request(String path, Map<String, String> headers, JsonNode body) {}

    private final ServerSocket server;
    private final String name;
    private final BlockingQueue<Reply> script = new LinkedBlockingQueue<>();
    private final AtomicReference<Reply> fallback = new AtomicReference<>(Reply.ok());
    private final List<Request> requests = new CopyOnWriteArrayList<>();
    private final ConcurrentLinkedQueue<Socket> sockets = new ConcurrentLinkedQueue<>();
    private final AtomicInteger served = new AtomicInteger();
    private final CountDownLatch closed = new CountDownLatch(1);

    /** @param name what it says it is in its answers' {@code system_fingerprint}, to tell endpoints apart */
    public OpenAiUpstream(String name) throws IOException {
        this.name = name;
        server = new ServerSocket(0, 512, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("upstream-" + name).start(this::accept);
    }

    /** The API's base URL, as a cloud model's {@code model_uri}. */
    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/v1";
    }

    public String name() {
        return name;
    }

    /** Replies for the next requests, in order. */
    public OpenAiUpstream then(Reply... replies) {
        script.addAll(List.of(replies));
        return this;
    }

    /** The reply once the script is used up. */
    public OpenAiUpstream always(Reply reply) {
        fallback.set(reply);
        return this;
    }

    public List<Request> requests() {
        return List.copyOf(requests);
    }

    /** Requests it took, answered or not. */
    public int served() {
        return served.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                Thread.ofVirtual().start(() -> serve(socket));
            } catch (IOException e) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            var in = new BufferedInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            while (true) {
                Request request = read(in);
                if (request == null) {
                    return;
                }
                requests.add(request);
                served.incrementAndGet();
                Reply reply = script.poll();
                if (!answer(reply == null ? fallback.get() : reply, request, socket, out)) {
                    return;
                }
            }
        } catch (IOException | InterruptedException e) {
            // the caller went away, or the test ended
        } finally {
            sockets.remove(socket);
        }
    }

    /** Answers; false when the connection is done with. */
    private boolean answer(Reply reply, Request request, Socket socket, OutputStream out)
            throws IOException, InterruptedException {
        String model = request.body().path("model").asText();
        switch (reply) {
            case Answer answer -> {
                // the script's slow upstream: a pause it plays on purpose, not a test waiting for a state
                Thread.sleep(answer.delay());
                send(
                        out,
                        200,
                        "application/json",
                        json(
                                request.path().endsWith("/embeddings")
                                        ? embeddings(
                                                model,
                                                request.body()
                                                        .path("encoding_format")
                                                        .asText("float"))
                                        : completion(model, "Hello from " + name + ".")));
            }
            case Error error -> send(out, error.status(), "application/json", json(Map.of("error", error(error))));
            case Hang ignored -> {
                closed.await();
                return false;
            }
            case Reset ignored -> {
                socket.setSoLinger(true, 0);
                return false;
            }
            case Invalid ignored ->
                send(out, 200, "application/json", "<html>not json".getBytes(StandardCharsets.UTF_8));
            case HeadersOnly ignored -> {
                boolean stream = request.body().path("stream").asBoolean(false);
                out.write((stream
                                ? "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
                                : "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 400\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
                closed.await();
                return false;
            }
            case ErrorIn200 ignored ->
                send(
                        out,
                        200,
                        "application/json",
                        json(Map.of("error", error(new Error(500, "internal_error_in_a_200")))));
            case RateLimited limited -> {
                byte[] body = json(Map.of("error", error(new Error(429, "rate_limit_exceeded"))));
                out.write(("HTTP/1.1 429 X\r\ncontent-type: application/json\r\nretry-after: "
                                + limited.retryAfterSeconds() + "\r\ncontent-length: " + body.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
            }
            case ClosedMidBody ignored -> {
                byte[] body = json(completion(model, "Hello from " + name + "."));
                out.write(("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: " + body.length
                                + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(body, 0, body.length / 2);
                out.flush();
                return false;
            }
            case Stream stream -> {
                out.write(("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                for (int i = 0; i < stream.parts().size(); i++) {
                    if (i == 1) {
                        stream.release().await();
                    }
                    if (i > 0) {
                        // the script's pace between chunks, played on purpose
                        Thread.sleep(stream.between());
                    }
                    chunk(
                            out,
                            "data: "
                                    + new String(
                                            json(delta(model, stream.parts().get(i))), StandardCharsets.UTF_8)
                                    + "\n\n");
                }
                if (stream.ending() == Ending.RESET) {
                    socket.setSoLinger(true, 0);
                    return false;
                }
                if (stream.ending() == Ending.HANG) {
                    closed.await();
                    return false;
                }
                if (stream.ending() == Ending.MALFORMED) {
                    chunk(out, "data: {\"choices\": [{\"delta\": \n\n");
                }
                if (stream.ending() == Ending.ERROR_EVENT) {
                    chunk(
                            out,
                            "data: "
                                    + new String(
                                            json(Map.of("error", error(new Error(500, "overloaded_mid_stream")))),
                                            StandardCharsets.UTF_8)
                                    + "\n\n");
                }
                chunk(out, "data: " + new String(json(usageChunk(model)), StandardCharsets.UTF_8) + "\n\n");
                chunk(out, "data: [DONE]\n\n");
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        }
        return true;
    }

    /** OpenAI's error shape, {@code param} null included. */
    private Map<String, Object> error(Error error) {
        var body = new LinkedHashMap<String, Object>();
        body.put("message", name + " says " + error.code());
        body.put("type", error.status() == 429 ? "rate_limit_error" : "server_error");
        body.put("param", null);
        body.put("code", error.code());
        return body;
    }

    private Map<String, Object> completion(String model, String text) {
        return Map.of(
                "id",
                "chatcmpl-" + served.get(),
                "object",
                "chat.completion",
                "created",
                1_795_000_000,
                "model",
                model,
                "system_fingerprint",
                name,
                "choices",
                List.of(Map.of(
                        "index", 0, "message", Map.of("role", "assistant", "content", text), "finish_reason", "stop")),
                "usage",
                Map.of("prompt_tokens", 12, "completion_tokens", 5, "total_tokens", 17));
    }

    private Map<String, Object> delta(String model, String text) {
        return Map.of(
                "id",
                "chatcmpl-s",
                "object",
                "chat.completion.chunk",
                "created",
                1_795_000_000,
                "model",
                model,
                "system_fingerprint",
                name,
                "choices",
                List.of(Map.of("index", 0, "delta", Map.of("content", text))));
    }

    private static Map<String, Object> usageChunk(String model) {
        return Map.of(
                "id",
                "chatcmpl-s",
                "object",
                "chat.completion.chunk",
                "created",
                1_795_000_000,
                "model",
                model,
                "choices",
                List.of(),
                "usage",
                Map.of("prompt_tokens", 7, "completion_tokens", 3, "total_tokens", 10));
    }

    /** The embedding [0.25, -0.5, 1.0], as floats or as base64 of little-endian float32 (the official clients ask so). */
    private static Map<String, Object> embeddings(String model, String format) {
        float[] vector = {0.25f, -0.5f, 1.0f};
        var bytes = ByteBuffer.allocate(4 * vector.length).order(ByteOrder.LITTLE_ENDIAN);
        for (float f : vector) {
            bytes.putFloat(f);
        }
        Object embedding =
                format.equals("base64") ? Base64.getEncoder().encodeToString(bytes.array()) : List.of(0.25, -0.5, 1.0);
        return Map.of(
                "object",
                "list",
                "model",
                model,
                "data",
                List.of(Map.of("object", "embedding", "index", 0, "embedding", embedding)),
                "usage",
                Map.of("prompt_tokens", 4, "total_tokens", 4));
    }

    private static byte[] json(Object value) throws IOException {
        return JSON.writeValueAsBytes(value);
    }

    private static void send(OutputStream out, int status, String type, byte[] body) throws IOException {
        out.write(("HTTP/1.1 " + status + " X\r\ncontent-type: " + type + "\r\ncontent-length: " + body.length
                        + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.write(body);
        out.flush();
    }

    private static void chunk(OutputStream out, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        out.write((Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** The next request on the connection; null at its end. */
    private static Request read(InputStream in) throws IOException {
        String requestLine = line(in);
        if (requestLine == null || requestLine.isEmpty()) {
            return null;
        }
        var headers = new java.util.HashMap<String, String>();
        for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
            int colon = header.indexOf(':');
            headers.put(
                    header.substring(0, colon).trim().toLowerCase(Locale.ROOT),
                    header.substring(colon + 1).trim());
        }
        int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
        byte[] body = in.readNBytes(length);
        return new Request(
                requestLine.split(" ")[1],
                Map.copyOf(headers),
                JSON.readTree(body.length == 0 ? "{}".getBytes(StandardCharsets.UTF_8) : body));
    }

    private static String line(InputStream in) throws IOException {
        var bytes = new ByteArrayOutputStream();
        for (int b = in.read(); b != '\n'; b = in.read()) {
            if (b < 0) {
                return null;
            }
            if (b != '\r') {
                bytes.write(b);
            }
        }
        return bytes.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        closed.countDown();
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
