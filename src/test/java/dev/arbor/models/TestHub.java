package dev.arbor.models;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;

/**
 * A model hub on loopback with Hugging Face's layout and API: {@code /api/models/<repo>/tree/<rev>} lists a
 * repository's files (size, and SHA-256 as the hub gives it for large files), {@code /<repo>/resolve/<rev>/<path>}
 * serves them, with ranges. It can serve slowly, and remembers the ranges it was asked for. Plain files (a model's
 * archive) are at {@code /files/<name>}.
 */
public final class TestHub implements AutoCloseable {
    private final HttpServer server;
    private final Map<String, Map<String, byte[]>> repositories = new ConcurrentHashMap<>();
    private final Map<String, String> wrongHashes = new ConcurrentHashMap<>();
    private final Map<String, byte[]> plainFiles = new ConcurrentHashMap<>();
    final List<String> ranges = new CopyOnWriteArrayList<>();
    /** How long it waits after each 64 KiB it sends: a slow hub, for a download to watch. */
    public volatile long pauseMillisPerChunk;

    public TestHub() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/", this::handle);
        server.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** A repository with the bundled MiniLM as a hub holds it, among files an engine does not need. */
    public TestHub withMiniLm(String repository) throws Exception {
        Path folder = ModelRegistryTest.miniLmFolder();
        repositories.put(
                repository,
                Map.of(
                        "onnx/model_quantized.onnx", Files.readAllBytes(folder.resolve("onnx/model_quantized.onnx")),
                        "tokenizer.json", Files.readAllBytes(folder.resolve("tokenizer.json")),
                        "README.md", "# MiniLM".getBytes(StandardCharsets.UTF_8)));
        return this;
    }

    TestHub withFiles(String repository, Map<String, byte[]> files) {
        repositories.put(repository, Map.copyOf(files));
        return this;
    }

    /** A file at {@code /files/<name>}, as any web server has one; returns its URL. */
    String withFile(String name, byte[] bytes) {
        plainFiles.put(name, bytes);
        return url() + "/files/" + name;
    }

    /** The tree says this file has another hash than its bytes: a download must refuse it. */
    TestHub withWrongHash(String repository, String path) {
        wrongHashes.put(repository + "/" + path, "0".repeat(64));
        return this;
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getPath();
        try (exchange) {
            if (path.startsWith("/api/models/")) {
                tree(exchange, path.substring("/api/models/".length()));
                return;
            }
            if (path.startsWith("/files/")) {
                byte[] bytes = plainFiles.get(path.substring("/files/".length()));
                if (bytes == null) {
                    exchange.sendResponseHeaders(404, -1);
                } else {
                    serve(exchange, bytes);
                }
                return;
            }
            int resolve = path.indexOf("/resolve/");
            if (resolve < 0) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            String repository = path.substring(1, resolve);
            String rest = path.substring(resolve + "/resolve/".length());
            String file = rest.substring(rest.indexOf('/') + 1);
            byte[] bytes = repositories.getOrDefault(repository, Map.of()).get(file);
            if (bytes == null) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            serve(exchange, bytes);
        }
    }

    private void tree(HttpExchange exchange, String rest) throws IOException {
        int tree = rest.indexOf("/tree/");
        Map<String, byte[]> files = tree < 0 ? null : repositories.get(rest.substring(0, tree));
        if (files == null) {
            exchange.sendResponseHeaders(404, -1);
            return;
        }
        String repository = rest.substring(0, tree);
        var json = new StringBuilder("[{\"type\": \"directory\", \"path\": \"onnx\"}");
        for (var file : files.entrySet()) {
            String sha = wrongHashes.getOrDefault(repository + "/" + file.getKey(), sha256(file.getValue()));
            json.append(", {\"type\": \"file\", \"path\": \"")
                    .append(file.getKey())
                    .append("\", \"size\": ")
                    .append(file.getValue().length)
                    .append(", \"lfs\": {\"oid\": \"")
                    .append(sha)
                    .append("\", \"size\": ")
                    .append(file.getValue().length)
                    .append("}}");
        }
        byte[] body = json.append("]").toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(200, body.length);
        exchange.getResponseBody().write(body);
    }

    private void serve(HttpExchange exchange, byte[] bytes) throws IOException {
        String range = exchange.getRequestHeaders().getFirst("Range");
        int from = 0;
        if (range != null) {
            ranges.add(range);
            from = Integer.parseInt(range.substring("bytes=".length(), range.indexOf('-')));
            exchange.getResponseHeaders()
                    .set("Content-Range", "bytes " + from + "-" + (bytes.length - 1) + "/" + bytes.length);
            exchange.sendResponseHeaders(206, bytes.length - from);
        } else {
            exchange.sendResponseHeaders(200, bytes.length);
        }
        OutputStream out = exchange.getResponseBody();
        for (int at = from; at < bytes.length; at += 64 * 1024) {
            out.write(bytes, at, Math.min(64 * 1024, bytes.length - at));
            out.flush();
            if (pauseMillisPerChunk > 0) {
                try {
                    // the slow hub a test asked for, played on purpose
                    Thread.sleep(pauseMillisPerChunk);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
