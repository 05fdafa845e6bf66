package dev.arbor.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP endpoint on loopback that keeps every request it gets and answers what a test scripted per path (200 with
 * {@code {"ok": true}} otherwise). A path can be held: requests to it wait until it is released.
 */
public final class HttpReceiver implements AutoCloseable {
    /** A request as it arrived; header names in lower case. */
    public record Received(String method, String path, Map<String, String> headers, String body) {}

    /** An answer: status, content type, body, and how long to wait before giving it. */
    public record Reply(int status, String contentType, String body, long delayMillis) {
        public static Reply json(int status, String body) {
            return new Reply(status, "application/json", body, 0);
        }

        public static Reply slow(long delayMillis) {
            return new Reply(200, "application/json", "{\"ok\": true}", delayMillis);
        }
    }

    private final HttpServer server;
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Reply>> scripts = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> holds = new ConcurrentHashMap<>();

    public HttpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    public String url(String path) {
        return "http://127.0.0.1:" + server.getAddress().getPort() + path;
    }

    /** The next answers for a path, in order; after them the default again. */
    public void script(String path, Reply... replies) {
        scripts.computeIfAbsent(path, p -> new ArrayDeque<>()).addAll(List.of(replies));
    }

    /** Requests to {@code path} wait from now until {@link #release}. */
    public void hold(String path) {
        holds.put(path, new CountDownLatch(1));
    }

    public void release(String path) {
        CountDownLatch latch = holds.remove(path);
        if (latch != null) {
            latch.countDown();
        }
    }

    /** Every request received, whatever its path. */
    public List<Received> received() {
        return List.copyOf(received);
    }

    public List<Received> received(String path) {
        return received.stream().filter(r -> r.path().equals(path)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        var headers = new TreeMap<String, String>();
        exchange.getRequestHeaders()
                .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.getFirst()));
        received.add(new Received(
                exchange.getRequestMethod(),
                path,
                headers,
                new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8)));
        try {
            CountDownLatch hold = holds.get(path);
            if (hold != null) {
                hold.await(60, TimeUnit.SECONDS);
            }
            Deque<Reply> script = scripts.get(path);
            Reply reply;
            synchronized (this) {
                reply = script == null || script.isEmpty() ? Reply.json(200, "{\"ok\": true}") : script.poll();
            }
            // a slow receiver, as the script asks (Reply.slow): a pause played on purpose, not a wait for a state
            Thread.sleep(reply.delayMillis());
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("content-type", reply.contentType());
            exchange.getResponseHeaders().set("x-receiver", "yes");
            exchange.sendResponseHeaders(reply.status(), body.length == 0 ? -1 : body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the caller gave up (a timeout under test)
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        holds.values().forEach(CountDownLatch::countDown);
        server.stop(0);
    }
}
