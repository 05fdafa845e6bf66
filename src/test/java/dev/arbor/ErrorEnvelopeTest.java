package dev.arbor;

import static dev.arbor.testing.TestServer.headers;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The error envelope of contract 7.1 for every status the platform produces, with request ids everywhere. */
class ErrorEnvelopeTest {
    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        server = ArborServer.start(
                Map.of("ARBOR_MAX_BODY_BYTES", "4096", "STUDIO_CORS_ORIGINS", "https://app.example"),
                new ProbeRoutes());
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void missingBodyIsInvalidJson() {
        http.post("/projects", null).assertError(400, "invalid_json", null);
        http.post("/projects", "  \n").assertError(400, "invalid_json", null);
    }

    @Test
    void unparsableBodyIsInvalidJsonWithItsPosition() {
        JsonNode error = http.post("/projects", "{\"name\": ").assertError(400, "invalid_json", null);
        assertThat(error.path("message").asText()).contains("not valid JSON").contains("line 1");
    }

    @Test
    void nonObjectBodiesAreInvalidJson() {
        for (String body : new String[] {"[1,2]", "\"text\"", "42", "null", "true"}) {
            http.post("/projects", body).assertError(400, "invalid_json", null);
        }
        assertThat(http.post("/projects", "[1]")
                        .json()
                        .path("error")
                        .path("message")
                        .asText())
                .isEqualTo("The body must be a JSON object, not an array.");
    }

    @Test
    void duplicateKeysAndTrailingGarbageAreInvalidJson() {
        http.post("/projects", "{\"name\":\"a\",\"name\":\"b\"}").assertError(400, "invalid_json", null);
        http.post("/projects", "{\"name\":\"a\"} {}").assertError(400, "invalid_json", null);
    }

    @Test
    void invalidUtf8IsInvalidJson() {
        byte[] body = {'{', '"', 'n', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
        http.sendBytes("POST", "/projects", body).assertError(400, "invalid_json", null);
    }

    @Test
    void overlongUtf8IsInvalidJson() {
        // C0 AF is an overlong '/': a lenient decoder reads it as one, and a check made on the text misses it
        byte[] body = {'{', '"', 'n', 'a', 'm', 'e', '"', ':', '"', '.', '.', (byte) 0xC0, (byte) 0xAF, '"', '}'};
        JsonNode error = http.sendBytes("POST", "/projects", body).assertError(400, "invalid_json", null);
        assertThat(error.path("message").asText()).contains("UTF-8");
        assertThat(http.get("/projects").json().path("data").findValuesAsText("name"))
                .doesNotContain("../");
    }

    @Test
    void aBodyCutShortIsIncompleteBodyNotAServerFailure() throws Exception {
        try (var socket = new java.net.Socket("127.0.0.1", http.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream()
                    .write(("POST /projects HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"name\":\"x")
                            .getBytes(StandardCharsets.US_ASCII));
            socket.shutdownOutput();
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);

            assertThat(response).startsWith("HTTP/1.1 400").contains("\"code\":\"incomplete_body\"");
        }
    }

    @Test
    void everyProblemOfOnePassIsListed() {
        HttpReply reply = http.post("/auth/tokens", "{\"name\": 7, \"role\": \"owner\", \"projects\": [\"\"]}");
        JsonNode error = reply.assertError(400, "invalid_field", "name");
        assertThat(error.path("details")).hasSize(3);
        assertThat(error.path("details").findValuesAsText("param")).containsExactly("name", "role", "projects[0]");
    }

    @Test
    void missingFieldNamesTheField() {
        http.post("/projects", "{}").assertError(400, "missing_field", "name");
    }

    @Test
    void unknownPathIsNotFoundEverywhere() {
        http.get("/no/such/thing").assertError(404, "not_found", null);
        JsonNode error = http.get("/v1/studio/no-such-thing").assertError(404, "not_found", null);
        assertThat(error.path("type").asText()).isEqualTo("not_found_error");
    }

    @Test
    void wrongMethodIsMethodNotAllowedEverywhere() {
        http.put("/health", "{}").assertError(405, "method_not_allowed", null);
        http.delete("/v1/studio/templates").assertError(405, "method_not_allowed", null);
    }

    @Test
    void conflictCarriesItsTypeAndExtraField() {
        http.post("/projects", "{\"name\": \"twice\"}");
        JsonNode error = http.post("/projects", "{\"name\": \"twice\"}").assertError(409, "project_exists", "name");
        assertThat(error.path("type").asText()).isEqualTo("conflict_error");

        JsonNode stale = http.post("/v1/studio/conflict", "{}").assertError(412, "version_conflict", "base_version");
        assertThat(stale.path("type").asText()).isEqualTo("conflict_error");
        assertThat(stale.path("current_version").asInt()).isEqualTo(3);
    }

    @Test
    void bodyOverTheLimitIsPayloadTooLarge() {
        String big = "{\"name\": \"" + "x".repeat(5000) + "\"}";
        JsonNode error = http.post("/projects", big).assertError(413, "payload_too_large", null);
        assertThat(error.path("type").asText()).isEqualTo("invalid_request_error");
    }

    @Test
    void chunkedBodyOverTheLimitIsPayloadTooLarge() {
        String chunk = "x".repeat(3000);
        String body = Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n"
                + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n0\r\n\r\n";
        String response = http.raw(("POST /probe/count HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + body)
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(response)
                .startsWith("HTTP/1.1 413")
                .contains("\"code\":\"payload_too_large\"")
                .containsIgnoringCase("x-request-id: req_");
    }

    @Test
    void uriOverTheLimitIsUriTooLongInTheEnvelope() {
        String response = http.raw(("GET /projects?q=" + "x".repeat(20_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                        + "Connection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(response)
                .startsWith("HTTP/1.1 414")
                .contains("\"code\":\"uri_too_long\"")
                .contains("\"type\":\"invalid_request_error\"")
                .containsIgnoringCase("x-request-id: req_");
    }

    @Test
    void headersOverTheLimitAreHeadersTooLargeInTheEnvelope() {
        String response = http.raw(("GET /projects HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + "y".repeat(20_000)
                        + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(response).startsWith("HTTP/1.1 431").contains("\"code\":\"headers_too_large\"");
    }

    @Test
    void browserWriteThatIsNotJsonIsUnsupportedMediaType() {
        String own = "http://127.0.0.1:" + http.port();
        http.post("/projects", "{\"name\":\"m\"}", headers("Origin", own, "Content-Type", "text/plain"))
                .assertError(415, "unsupported_media_type", null);
    }

    @Test
    void unexpectedFailureIsInternalErrorWithoutDetails() {
        HttpReply reply = http.get("/probe/boom");
        JsonNode error = reply.assertError(500, "internal_error", null);
        assertThat(error.path("type").asText()).isEqualTo("api_error");
        assertThat(reply.body()).doesNotContain("secret-looking").doesNotContain("IllegalStateException");
    }

    @Test
    void jvmErrorsStillGetTheEnvelope() {
        HttpReply reply = http.get("/probe/overflow");
        reply.assertError(500, "internal_error", null);
        assertThat(http.get("/health").status()).isEqualTo(200);
    }

    @Test
    void everyResponseCarriesARequestId() {
        assertThat(http.get("/health").header("x-request-id")).matches("req_[0-9a-f]{32}");
        assertThat(http.get("/nowhere").header("x-request-id")).matches("req_[0-9a-f]{32}");
        assertThat(http.post("/projects", "nope").header("x-request-id")).matches("req_[0-9a-f]{32}");
        assertThat(http.put("/health", "{}").header("x-request-id")).matches("req_[0-9a-f]{32}");
    }

    @Test
    void requestIdsAreUniqueAndAClientIdIsKept() {
        assertThat(http.get("/health").header("x-request-id"))
                .isNotEqualTo(http.get("/health").header("x-request-id"));
        assertThat(http.get("/health", "x-request-id", "trace-42").header("x-request-id"))
                .isEqualTo("trace-42");
        assertThat(http.get("/health", "x-request-id", "bad id with spaces").header("x-request-id"))
                .matches("req_[0-9a-f]{32}");
    }
}
