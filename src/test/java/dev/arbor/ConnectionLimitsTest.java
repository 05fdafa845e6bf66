package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What one client may hold of the server's connections: slow headers are cut, and one address has a limit. */
class ConnectionLimitsTest {
    private static final byte[] HEALTH =
            "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

    @Test
    void theServerListensWithRoomForABurstOfNewConnections() throws IOException, InterruptedException {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/bin/ss")) || Files.isExecutable(Path.of("/bin/ss")),
                "ss (iproute2) shows a listening socket's backlog; it is not installed here");
        try (var server = ArborServer.start(Map.of())) {
            Process ss = new ProcessBuilder(
                            "ss", "-Hltn", "sport = :" + server.http().port())
                    .redirectErrorStream(true)
                    .start();
            String listening = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(ss.waitFor()).isZero();
            // State Recv-Q Send-Q Local Peer: a listening socket's Send-Q is its accept queue
            assertThat(listening.strip().split("\\s+")[2]).as(listening).isEqualTo("1024");
        }
    }

    @Test
    void headersSentALineAtATimeAreCutAfterTheHeaderTimeout() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_HEADER_TIMEOUT_SECONDS", "1"))) {
            List<Socket> open = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket socket = new Socket("127.0.0.1", server.http().port());
                    socket.setSoTimeout(200);
                    socket.getOutputStream()
                            .write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
                    open.add(socket);
                }
                var slow = new ArrayList<>(open);
                // a header line every 600 ms at most keeps Jetty's 30 s idle timeout from ever ending them
                for (int line = 0; line < 300 && !slow.isEmpty(); line++) {
                    int number = line;
                    slow.removeIf(socket -> closedAfterOneMoreLine(socket, number));
                }
                assertThat(slow).as("connections still sending headers").isEmpty();
                assertThat(server.http().get("/health").status()).isEqualTo(200);
            } finally {
                for (Socket socket : open) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void aKeptAliveConnectionHasTheSameTimeForItsNextRequestsHeaders() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_HEADER_TIMEOUT_SECONDS", "1"));
                Socket socket = new Socket("127.0.0.1", server.http().port())) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(HEALTH);
            assertThat(wholeResponse(socket.getInputStream())).startsWith("HTTP/1.1 200");
            socket.setSoTimeout(200);
            socket.getOutputStream()
                    .write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
            boolean closed = false;
            for (int line = 0; line < 300 && !closed; line++) {
                closed = closedAfterOneMoreLine(socket, line);
            }
            assertThat(closed)
                    .as("closed while sending its second request's headers")
                    .isTrue();
        }
    }

    @Test
    void anAddressOverItsConnectionLimitIsClosedWhileOthersAreServed() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_MAX_CONNECTIONS_PER_ADDRESS", "3"))) {
            int port = server.http().port();
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket socket = from("127.0.0.2", port);
                    held.add(socket);
                    assertThat(healthOn(socket)).startsWith("HTTP/1.1 200");
                }
                try (Socket oneTooMany = from("127.0.0.2", port)) {
                    assertThat(healthOn(oneTooMany)).as("answer over the limit").isEmpty();
                }
                assertThat(server.http().get("/health").status()).isEqualTo(200);

                held.removeFirst().close();
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    try (Socket again = from("127.0.0.2", port)) {
                        assertThat(healthOn(again)).startsWith("HTTP/1.1 200");
                    }
                });
            } finally {
                for (Socket socket : held) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void atTheServersConnectionCapTheOldestSlowHeadersAreClosedAndHealthIsStillAnswered() throws IOException {
        int cap = 8;
        // slow-header clients from several addresses, each well under the per-address limit
        try (var server = ArborServer.start(Map.of("ARBOR_MAX_CONNECTIONS", Integer.toString(cap)))) {
            int port = server.http().port();
            List<Socket> slow = new ArrayList<>();
            try {
                for (int i = 0; i < 3 * cap; i++) {
                    Socket socket = from("127.0.0." + (2 + i % 4), port);
                    socket.getOutputStream()
                            .write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
                    slow.add(socket);
                    // the server's selectors may take two connections opened together in either order; one at a
                    // time over the cap, "oldest" is the order they were opened in
                    long overTheCap = i + 1L - cap;
                    if (overTheCap > 0) {
                        await().atMost(Duration.ofSeconds(20))
                                .untilAsserted(
                                        () -> assertThat(slow.stream().filter(ConnectionLimitsTest::closedByServer))
                                                .as("slow connections closed to stay within the cap")
                                                .hasSizeGreaterThanOrEqualTo((int) overTheCap));
                    }
                }

                assertThat(slow.subList(0, 2 * cap))
                        .as("the oldest are the ones closed")
                        .allMatch(ConnectionLimitsTest::closedByServer);
                for (int probe = 0; probe < 3; probe++) {
                    try (Socket health = from("127.0.0.9", port)) {
                        assertThat(healthOn(health)).as("probe " + probe).startsWith("HTTP/1.1 200");
                    }
                }
            } finally {
                for (Socket socket : slow) {
                    socket.close();
                }
            }
        }
    }

    @Test
    void atTheCapWithEveryConnectionInsideARequestANewOneIsClosed() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_MAX_CONNECTIONS", "2"));
                Socket first = from("127.0.0.2", server.http().port());
                Socket second = from("127.0.0.3", server.http().port())) {
            int port = server.http().port();
            // two bodies still arriving: both connections are inside a request, none waits for headers
            for (Socket socket : List.of(first, second)) {
                socket.getOutputStream()
                        .write(("POST /projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                        + "Content-Length: 1000\r\n\r\n{")
                                .getBytes(StandardCharsets.US_ASCII));
            }
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                try (Socket third = from("127.0.0.4", port)) {
                    assertThat(healthOn(third)).as("answer over the cap").isEmpty();
                }
            });
            assertThat(closedByServer(first)).isFalse();
            assertThat(closedByServer(second)).isFalse();
        }
    }

    @Test
    void aBodyTricklingInIsCutWithBodyTooSlow() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_MIN_BODY_BYTES_PER_SECOND", "1024"));
                Socket socket = new Socket("127.0.0.1", server.http().port())) {
            socket.setSoTimeout(200);
            var out = socket.getOutputStream();
            out.write(("POST /v1/studio/decisions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Transfer-Encoding: chunked\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            var answer = new StringBuilder();
            // a byte each time the server has not answered within 200 ms: about 5 bytes a second
            for (int chunk = 0; chunk < 300 && answer.isEmpty(); chunk++) {
                try {
                    out.write("1\r\n \r\n".getBytes(StandardCharsets.US_ASCII));
                } catch (IOException e) {
                    break; // closed: what it said is read below
                }
                answer.append(readWhatIsThere(socket));
            }
            socket.setSoTimeout(5_000);
            answer.append(readWhatIsThere(socket));
            assertThat(answer.toString())
                    .as("the answer to a body sent at 5 bytes a second")
                    .startsWith("HTTP/1.1 408")
                    .contains("\"code\":\"body_too_slow\"");
        }
    }

    /** What the server sent until it paused (the socket's timeout) or closed; empty when nothing. */
    private static String readWhatIsThere(Socket socket) {
        var read = new StringBuilder();
        try {
            InputStream in = socket.getInputStream();
            for (int next; (next = in.read()) >= 0; ) {
                read.append((char) next);
            }
        } catch (IOException e) {
            // paused or reset: what came before stands
        }
        return read.toString();
    }

    /** Whether the server has closed this connection (nothing to read but its end, or a reset). */
    private static boolean closedByServer(Socket socket) {
        try {
            socket.setSoTimeout(10);
            return socket.getInputStream().read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** Sends one more header line; whether the server has closed the connection, without an answer. */
    private static boolean closedAfterOneMoreLine(Socket socket, int line) {
        try {
            socket.getOutputStream().write(("X-Line-" + line + ": slow\r\n").getBytes(StandardCharsets.US_ASCII));
            assertThat(socket.getInputStream().read())
                    .as("what the server sent back")
                    .isEqualTo(-1);
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    /** One response read to its end (its Content-Length), so that the connection can carry the next. */
    private static String wholeResponse(InputStream in) throws IOException {
        var head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int next = in.read();
            if (next < 0) {
                throw new IOException("closed before the response's headers ended: " + head);
            }
            head.append((char) next);
        }
        Matcher length = CONTENT_LENGTH.matcher(head);
        assertThat(length.find()).as("a Content-Length in " + head).isTrue();
        return head + new String(in.readNBytes(Integer.parseInt(length.group(1))), StandardCharsets.UTF_8);
    }

    private static Socket from(String localAddress, int port) throws IOException {
        var socket = new Socket();
        socket.bind(new InetSocketAddress(localAddress, 0));
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** The first bytes of the answer to a GET /health on this connection; empty when it was closed without one. */
    private static String healthOn(Socket socket) {
        try {
            socket.getOutputStream().write(HEALTH);
            InputStream in = socket.getInputStream();
            var answer = new StringBuilder();
            while (answer.length() < 12) {
                int next = in.read();
                if (next < 0) {
                    break;
                }
                answer.append((char) next);
            }
            return answer.toString();
        } catch (SocketTimeoutException e) {
            throw new UncheckedIOException(e);
        } catch (IOException e) {
            return "";
        }
    }
}
