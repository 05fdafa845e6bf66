package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A request refused before its body was read: the server reads the rest of the body before it answers, so that the
 * connection is not reset under the answer and carries the client's next request.
 */
class UnreadBodyTest {
    /** Larger than the kernel's buffers on loopback: the client is still sending it when the refusal is ready. */
    private static final String LARGE = "{\"description\": \"" + "x".repeat(8_000_000) + "\"}";

    @ParameterizedTest
    @CsvSource({
        "PATCH, /clusters/local, 409, cluster_built_in, cluster_id",
        "POST, /no/such/route, 404, not_found, ",
        "POST, /health, 405, method_not_allowed, "
    })
    void aRefusedLargeBodyIsAnsweredAndTheConnectionCarriesTheNextWrite(
            String method, String path, int status, String code, String param) {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            for (int round = 0; round < 3; round++) {
                http.send(method, path, LARGE).assertError(status, code, param);
                assertThat(http.post("/projects", "{\"name\": \"p" + round + "\"}")
                                .status())
                        .isEqualTo(201);
            }
        }
    }

    @Test
    void theRestOfARefusedBodyIsReadBeforeTheAnswerAndTheConnectionStaysOpen() throws IOException {
        try (var server = ArborServer.start(Map.of());
                Socket socket = new Socket("127.0.0.1", server.http().port())) {
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            String body = "{\"description\": \"late\"}";
            out.write(("PATCH /clusters/local HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                            + "Content-Length: " + body.length() + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            out.write((body + "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(answers).startsWith("HTTP/1.1 409").contains("\"cluster_built_in\"");
            assertThat(answers.substring(0, answers.indexOf("\r\n\r\n"))).doesNotContainIgnoringCase("connection:");
            assertThat(answers).contains("HTTP/1.1 200").contains("\"status\":\"ok\"");
        }
    }

    @Test
    void aBodyOverTheLimitIsNotReadAndItsConnectionIsClosed() throws IOException {
        try (var server = ArborServer.start(Map.of("ARBOR_MAX_BODY_BYTES", "1048576"));
                Socket socket = new Socket("127.0.0.1", server.http().port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(("POST /projects HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                    + "Content-Length: 2097152\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(answer).startsWith("HTTP/1.1 413").containsIgnoringCase("connection: close");
            assertThat(answer).contains("\"payload_too_large\"");
        }
    }
}
