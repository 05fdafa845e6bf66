package dev.arbor.testing;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The real MCP server {@code @modelcontextprotocol/server-everything} (installed in src/test/mcp by the build's npm
 * ci), run by node on a free port, kept on 127.0.0.1 by the loopback preload.
 */
public final class EverythingServer implements AutoCloseable {
    private static final Path FIXTURE = Path.of("src/test/mcp").toAbsolutePath();

    private final Process process;
    private final int port;

    private EverythingServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The server's script, for node: {@code node <script> stdio} speaks MCP on its standard streams. */
    public static Path script() {
        Path script = FIXTURE.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
        if (!Files.isRegularFile(script)) {
            throw new IllegalStateException(script + " is missing: the build installs it (npm ci in src/test/mcp)");
        }
        return script;
    }

    /** @param transport {@code streamableHttp} (endpoint /mcp) or {@code sse} (endpoint /sse) */
    public static EverythingServer start(String transport) throws IOException {
        int port;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        return start(transport, port);
    }

    /** A server on a given port: a restart where the last one was, which knows none of its sessions. */
    public static EverythingServer start(String transport, int port) throws IOException {
        Path script = script();
        var builder = new ProcessBuilder(
                        "node", "--require", FIXTURE.resolve("loopback.cjs").toString(), script.toString(), transport)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("PORT", Integer.toString(port));
        Process process = builder.start();
        var server = new EverythingServer(process, port);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try (var _ = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return true;
            }
        });
        return server;
    }

    public int port() {
        return port;
    }

    public String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
