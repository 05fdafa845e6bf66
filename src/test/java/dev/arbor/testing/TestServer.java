package dev.arbor.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * An HTTP client for a server under test, on loopback, closed with that server. Each server has a client of its own:
 * with one client for all, a connection kept alive to a server that has stopped could carry a request meant for a
 * later server that got the same port, and the request would fail without an answer.
 */
public final class TestServer implements AutoCloseable {
    private final int port;
    /** Replaced only when the server on this port is killed and started again ({@link #forgetConnections}). */
    private volatile HttpClient client = newClient();

    public TestServer(int port) {
        this.port = port;
    }

    private static HttpClient newClient() {
        return HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(5))
                .version(HttpClient.Version.HTTP_1_1)
                .build();
    }

    public int port() {
        return port;
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    public HttpReply get(String path, String... headers) {
        return send("GET", path, null, headers);
    }

    public HttpReply delete(String path, String... headers) {
        return send("DELETE", path, null, headers);
    }

    public HttpReply post(String path, String body, String... headers) {
        return send("POST", path, body, headers);
    }

    /** A POST without a body, for actions on a resource. */
    public HttpReply action(String path, String... headers) {
        return send("POST", path, null, headers);
    }

    public HttpReply patch(String path, String body, String... headers) {
        return send("PATCH", path, body, headers);
    }

    public HttpReply put(String path, String body, String... headers) {
        return send("PUT", path, body, headers);
    }

    /** Creates a project named {@code name} (an admin's token in {@code headers} where the server has one): its id. */
    public String newProject(String name, String... headers) {
        return post("/projects", "{\"name\": \"" + name + "\"}", headers)
                .json()
                .path("id")
                .asText();
    }

    /** Sends a request; {@code headers} are name, value pairs. */
    public HttpReply send(String method, String path, String body, String... headers) {
        return sendBytes(method, path, body == null ? null : body.getBytes(StandardCharsets.UTF_8), headers);
    }

    public HttpReply sendBytes(String method, String path, byte[] body, String... headers) {
        return reply(request(
                method,
                path,
                body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body),
                Duration.ofSeconds(30),
                headers));
    }

    /** Sends a body of unknown length (chunked), such as one too large to hold. */
    public HttpReply sendStream(String method, String path, Supplier<InputStream> body, String... headers) {
        return reply(request(
                method, path, HttpRequest.BodyPublishers.ofInputStream(body), Duration.ofSeconds(120), headers));
    }

    private HttpRequest request(
            String method, String path, HttpRequest.BodyPublisher body, Duration timeout, String... headers) {
        var builder = HttpRequest.newBuilder(uri(path)).timeout(timeout);
        for (int i = 0; i < headers.length; i += 2) {
            builder.header(headers[i], headers[i + 1]);
        }
        return builder.method(method, body).build();
    }

    private HttpReply reply(HttpRequest request) {
        HttpResponse<String> response = exchange(request, HttpResponse.BodyHandlers.ofString());
        return new HttpReply(response.statusCode(), response.headers(), response.body());
    }

    private <T> HttpResponse<T> exchange(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        try {
            return client.send(request, handler);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The bytes of a GET, for bodies that are not text. */
    public byte[] bytes(String path) {
        return exchange(
                        request("GET", path, HttpRequest.BodyPublishers.noBody(), Duration.ofSeconds(30)),
                        HttpResponse.BodyHandlers.ofByteArray())
                .body();
    }

    /** Sends raw bytes over a socket, for requests an HTTP client refuses to make; returns the raw response. */
    public String raw(byte[] request) {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(request);
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Drops the connections kept alive to a server that was killed, so that the next request opens one to the server
     * started on the same port after it.
     */
    void forgetConnections() {
        HttpClient killed = client;
        client = newClient();
        killed.close();
    }

    /**
     * Closes the connections, once the server has stopped; waits for requests still in flight, each bounded by its
     * timeout.
     */
    @Override
    public void close() {
        client.close();
    }

    /** Name, value pairs. */
    public static String[] headers(String... pairs) {
        return pairs;
    }

    public static String[] with(String[] headers, String... more) {
        var all = new ArrayList<>(List.of(headers));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }
}
