package dev.arbor.connectors.agents;

import static java.nio.charset.StandardCharsets.UTF_8;
import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tool calls to a Streamable HTTP server over a kept session, straight on the {@link OutboundClient} (which connects
 * only to an address the outbound policy checked): the hot path of agents' calls, where the SDK's reactive client
 * costs more than the server itself (AgentEndpointBench). A session
 * is opened once per gateway (initialize, then the initialized notification) and opened again when the server has
 * forgotten it (404). An answer may come as JSON or as a stream of events, of which the one answering the call counts.
 */
final class StreamableCalls implements AutoCloseable {
    private static final String PROTOCOL = "2025-06-18";
    private static final int MAX_ANSWER = 16 * 1024 * 1024;

    /** The server refused the credentials (401): worth a new token and one more try. */
    static final class Unauthorized extends IOException {
        Unauthorized(String message) {
            super(message);
        }
    }

    /** What the server answered a call with, as JSON-RPC: a result, or an error it gave. */
    record Answer(Optional<JsonNode> result, Optional<JsonNode> error) {}

    private record Session(Optional<String> id, String protocolVersion) {}

    private final OutboundClient http;
    private final Duration timeout;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final ScheduledExecutorService deadlines = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("mcp-call-deadlines").factory());

    StreamableCalls(OutboundClient http, Duration timeout) {
        this.http = requireNonNull(http, "http");
        this.timeout = requireNonNull(timeout, "timeout");
    }

    /**
     * Calls a tool on the session kept under {@code key} (the gateway as it is now, and the identity on a per-user
     * gateway); {@code headers} carry the credentials.
     */
    Answer call(Gateway gateway, String key, Map<String, String> headers, String tool, JsonNode arguments)
            throws IOException {
        ObjectNode params = Json.object().put("name", tool);
        params.set("arguments", arguments);
        Session session = session(key, gateway, headers);
        Exchange first = post(gateway, headers, Optional.of(session), "tools/call", params);
        Exchange exchange = first;
        if (first.status() == 404 && session.id().isPresent()) {
            sessions.remove(key, session); // the server forgot the session: a new one, and the call once more
            exchange = post(gateway, headers, Optional.of(session(key, gateway, headers)), "tools/call", params);
        }
        int status = exchange.status();
        return exchange.answer()
                .orElseThrow(() -> new IOException("the server answered " + status + " without a JSON-RPC answer"));
    }

    /** Forgets the sessions of a gateway that changed, went or was disabled. */
    void forget(String gatewayId) {
        sessions.keySet().removeIf(key -> key.startsWith(gatewayId + "@"));
    }

    /** Forgets one session, which failed. */
    void forgetSession(String key) {
        sessions.remove(key);
    }

    private Session session(String key, Gateway gateway, Map<String, String> headers) throws IOException {
        Session known = sessions.get(key);
        if (known != null) {
            return known;
        }
        // the sessions of the gateway as it was before a change go
        String current = gateway.id() + "@" + gateway.updatedAt();
        sessions.keySet()
                .removeIf(other -> other.startsWith(gateway.id() + "@")
                        && !other.equals(current)
                        && !other.startsWith(current + "/"));
        ObjectNode params = Json.object().put("protocolVersion", PROTOCOL);
        params.putObject("capabilities");
        params.putObject("clientInfo").put("name", "arbor").put("version", "1");
        Exchange initialized = post(gateway, headers, Optional.empty(), "initialize", params);
        JsonNode result = initialized
                .answer()
                .flatMap(Answer::result)
                .orElseThrow(() ->
                        new IOException("the server did not initialize a session (" + initialized.status() + ")"));
        var session = new Session(
                initialized.sessionId(), result.path("protocolVersion").asText(PROTOCOL));
        notifyInitialized(gateway, headers, session);
        sessions.put(key, session);
        return session;
    }

    private record Exchange(int status, Optional<String> sessionId, Optional<Answer> answer) {}

    private Exchange post(
            Gateway gateway, Map<String, String> headers, Optional<Session> session, String method, JsonNode params)
            throws IOException {
        long id = ids.incrementAndGet();
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", id).put("method", method);
        message.set("params", params);
        return exchange(gateway, headers, session, message, OptionalLong.of(id));
    }

    private void notifyInitialized(Gateway gateway, Map<String, String> headers, Session session) throws IOException {
        ObjectNode message = Json.object().put("jsonrpc", "2.0").put("method", "notifications/initialized");
        int status = exchange(gateway, headers, Optional.of(session), message, OptionalLong.empty())
                .status();
        if (status / 100 != 2) {
            throw new IOException("the server refused the initialized notification (" + status + ")");
        }
    }

    /** One POST; the answer to {@code id} when one is awaited, read within the deadline. */
    private Exchange exchange(
            Gateway gateway, Map<String, String> headers, Optional<Session> session, JsonNode message, OptionalLong id)
            throws IOException {
        var request = HttpRequest.newBuilder(URI.create(gateway.url()))
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .POST(HttpRequest.BodyPublishers.ofByteArray(Json.write(message)));
        headers.forEach(request::header);
        session.ifPresent(s -> {
            s.id().ifPresent(sessionId -> request.header("Mcp-Session-Id", sessionId));
            request.header("MCP-Protocol-Version", s.protocolVersion());
        });
        HttpResponse<InputStream> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while calling the server", e);
        }
        try (InputStream body = response.body()) {
            int status = response.statusCode();
            if (status == 401) {
                throw new Unauthorized("the server refused the credentials (401)");
            }
            Optional<String> sessionId = response.headers().firstValue("mcp-session-id");
            if (status / 100 != 2 || id.isEmpty() || status == 202) {
                return new Exchange(status, sessionId, Optional.empty());
            }
            boolean events =
                    response.headers().firstValue("content-type").orElse("").startsWith("text/event-stream");
            JsonNode answer =
                    withDeadline(body, () -> events ? fromEvents(body, id.getAsLong()) : Json.read(read(body)));
            return new Exchange(
                    status,
                    sessionId,
                    Optional.of(new Answer(
                            Optional.ofNullable(answer.get("result")), Optional.ofNullable(answer.get("error")))));
        }
    }

    private interface Reading {
        JsonNode read() throws IOException;
    }

    /** Reads an answer, closing its stream at the deadline if the server hangs in the middle of it. */
    private JsonNode withDeadline(InputStream body, Reading reading) throws IOException {
        var reached = new AtomicBoolean();
        ScheduledFuture<?> deadline = deadlines.schedule(
                () -> {
                    reached.set(true); // before closing: the reader's failure may come before this task ends
                    body.close();
                    return null;
                },
                timeout.toMillis(),
                TimeUnit.MILLISECONDS);
        try {
            return reading.read();
        } catch (IOException e) {
            if (reached.get()) {
                throw new HttpTimeoutException("the server did not answer within " + timeout.toSeconds() + " s");
            }
            throw e;
        } finally {
            deadline.cancel(false);
        }
    }

    /** Reads events until the one answering {@code id}; notifications and other events before it are passed over. */
    private static JsonNode fromEvents(InputStream body, long id) throws IOException {
        var reader = new BufferedReader(new InputStreamReader(body, UTF_8));
        var data = new StringBuilder();
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            if (line.startsWith("data:")) {
                data.append(line.substring(line.startsWith("data: ") ? 6 : 5)).append('\n');
                if (data.length() > MAX_ANSWER) {
                    throw new IOException("an event of the server is larger than " + MAX_ANSWER + " bytes");
                }
            } else if (line.isEmpty() && !data.isEmpty()) {
                JsonNode event = Json.read(data.toString());
                data.setLength(0);
                if (event != null && event.path("id").asLong(-1) == id && (event.has("result") || event.has("error"))) {
                    return event;
                }
            }
        }
        throw new IOException("the server's event stream ended without an answer");
    }

    private static String read(InputStream body) throws IOException {
        byte[] bytes = body.readNBytes(MAX_ANSWER + 1);
        if (bytes.length > MAX_ANSWER) {
            throw new IOException("the server's answer is larger than " + MAX_ANSWER + " bytes");
        }
        return new String(bytes, UTF_8);
    }

    /** Stops the deadlines; the outbound client is the server's, closed with it. */
    @Override
    public void close() {
        deadlines.shutdownNow();
    }
}
