package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.http.Route;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /health}, {@code /metrics} and {@code /openapi.json}. */
class PlatformRoutesTest {
    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of(), new ProbeRoutes());
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void healthSaysOk() {
        JsonNode health = http.get("/health").json();
        assertThat(health.path("status").asText()).isEqualTo("ok");
        assertThat(health.path("version").asText()).isNotBlank();
    }

    @Test
    void metricsCountRequestsByRouteTemplate() {
        http.get("/projects/prj_one");
        http.get("/projects/prj_two");
        http.get("/no/such/route");
        String metrics = http.get("/metrics").body();
        assertThat(metrics)
                .contains("http_server_requests_seconds_bucket")
                .containsPattern("http_server_requests_seconds_count\\{[^}]*route=\"/projects/\\{project_id}\""
                        + "[^}]*status=\"404\"[^}]*} 2")
                .doesNotContain("prj_one")
                .containsPattern("http_server_requests_seconds_count\\{[^}]*route=\"unmatched\"[^}]*status=\"404\"")
                .contains("jvm_memory_used_bytes");
    }

    @Test
    void openApiDocumentsEveryRegisteredRoute() {
        JsonNode doc = http.get("/openapi.json").json();
        assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
        for (Route route : server.application().server().routes()) {
            JsonNode operation = doc.path("paths")
                    .path(route.path())
                    .path(route.method().name().toLowerCase(Locale.ROOT));
            assertThat(operation.isObject())
                    .as("%s %s is documented", route.method(), route.path())
                    .isTrue();
            assertThat(operation.path("summary").asText()).isEqualTo(route.summary());
        }
        assertThat(doc.path("paths")
                        .path("/projects/{project_id}")
                        .path("get")
                        .path("parameters")
                        .get(0)
                        .path("name")
                        .asText())
                .isEqualTo("project_id");
        assertThat(doc.path("components").path("schemas").path("Error").isObject())
                .isTrue();
    }

    @Test
    void operationIdsAreUnique() {
        var ids = server.application().server().routes().stream()
                .map(Route::operationId)
                .toList();
        assertThat(ids).doesNotHaveDuplicates();
    }

    @Test
    void everyAnswerTellsBrowsersNotToGuessItsType() {
        var answers = Map.of(
                "a route's JSON", http.get("/health"),
                "the OpenAPI document", http.get("/openapi.json"),
                "an unknown path", http.get("/no/such/route"),
                "a bad body", http.post("/v1/studio/probe/echo", "{not json"),
                "an error with extra fields", http.post("/v1/studio/conflict", "{}"),
                "an unexpected failure", http.get("/probe/boom"));
        answers.forEach((what, reply) -> assertThat(reply.header("X-Content-Type-Options"))
                .as(what + " (" + reply.status() + ")")
                .isEqualTo("nosniff"));
        String refusedByJetty = http.raw(("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + "a".repeat(64 * 1024)
                        + "\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        assertThat(refusedByJetty).startsWith("HTTP/1.1 431").containsIgnoringCase("X-Content-Type-Options: nosniff");
    }
}
