package dev.arbor.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * {@code arbor serve} in a process of its own on a data folder, as an operator runs it, so that a test can kill it
 * as {@code kill -9} does (no shutdown hook, nothing tidied) and serve the same folder again on the same port.
 */
public final class ArborProcess implements AutoCloseable {
    private final Path data;
    private final int port;
    private final Map<String, String> env;
    /** One client for every start on this port: tests keep it across a kill and the start after it. */
    private final TestServer http;

    private Process process;

    private final String maxHeap;

    private ArborProcess(Path data, int port, Map<String, String> env, String maxHeap) {
        this.data = data;
        this.port = port;
        this.env = env;
        this.maxHeap = maxHeap;
        this.http = new TestServer(port);
    }

    /** Serves {@code data} on a free port with {@code env} added to this process's environment; ready to answer. */
    public static ArborProcess serve(Path data, Map<String, String> env) {
        return serve(data, env, "512m");
    }

    /** {@link #serve(Path, Map)} with a heap of at most {@code maxHeap} ({@code -Xmx}, such as {@code 512m}). */
    public static ArborProcess serve(Path data, Map<String, String> env, String maxHeap) {
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var started = new ArborProcess(data, port, Map.copyOf(env), maxHeap);
        started.start();
        return started;
    }

    public TestServer http() {
        return http;
    }

    /** Kills the server at once, as {@code kill -9} does, and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
        http.forgetConnections();
    }

    /** Serves the same folder on the same port again, after {@link #kill}; ready to answer. */
    public void start() {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        var builder = new ProcessBuilder(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx" + maxHeap,
                "-cp",
                System.getProperty("java.class.path"),
                "dev.arbor.Arbor",
                "serve",
                "--port",
                Integer.toString(port),
                "--data",
                data.toString());
        builder.environment().putAll(env);
        builder.redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        data.resolveSibling(data.getFileName() + ".log").toFile()));
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        await().atMost(Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(() -> http.get("/health").status() == 200);
    }

    /** Stops the server as an operator's {@code kill} does, then closes its client. */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                process.waitFor();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        http.close();
    }
}
