package dev.arbor.testing;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A web server holding a model file, for models added from a URL: it answers a few bytes (a GGUF file's magic) at any
 * path on loopback. Stop it with {@code stop(0)}.
 */
public final class ModelFileServer {
    private ModelFileServer() {}

    public static HttpServer start() {
        try {
            HttpServer started = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            started.createContext("/", exchange -> {
                byte[] bytes = "GGUF".getBytes(StandardCharsets.US_ASCII);
                exchange.sendResponseHeaders(200, bytes.length);
                try (var out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            });
            started.start();
            return started;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
