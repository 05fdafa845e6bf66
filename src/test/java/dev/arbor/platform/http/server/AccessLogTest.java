package dev.arbor.platform.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.platform.logging.LogFormat;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AccessLogTest {

    @Test
    void writesOneLogfmtLinePerRequest() {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, LogFormat.TEXT, out)) {
            log.start();
            log.request("GET", "/projects/prj_1", 404, 1_234_567, "req_abc", Optional.empty());
            log.request("POST", "/odd path\"", 201, 10_000, "req_def", Optional.empty());
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0])
                .matches("\\d{4}-\\d\\d-\\d\\dT\\S+Z INFO  access method=GET path=/projects/prj_1 "
                        + "status=404 duration_ms=1.23 request_id=req_abc");
        assertThat(lines[1]).contains("path=\"/odd path\\\"\"").contains("status=201");
    }

    @Test
    void aTracedRequestsLineEndsWithItsTraceId() {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, LogFormat.TEXT, out)) {
            log.start();
            log.request("GET", "/health", 200, 10_000, "req_t", Optional.of("4bf92f3577b34da6a3ce929d0e0e4736"));
        }
        assertThat(out.toString(StandardCharsets.UTF_8))
                .endsWith(" request_id=req_t trace_id=4bf92f3577b34da6a3ce929d0e0e4736\n");
    }

    @Test
    void writesOneJsonObjectPerRequestInJsonFormat() throws Exception {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, LogFormat.JSON, out)) {
            log.start();
            log.request(
                    "GET", "/projects/prj_1", 404, 1_234_567, "req_j", Optional.of("4bf92f3577b34da6a3ce929d0e0e4736"));
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(1);
        var line = new ObjectMapper().readTree(lines[0]);
        assertThat(line.path("level").asText()).isEqualTo("INFO");
        assertThat(line.path("logger").asText()).isEqualTo("access");
        assertThat(line.path("request_id").asText()).isEqualTo("req_j");
        assertThat(line.path("trace_id").asText()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
        assertThat(line.path("status").asInt()).isEqualTo(404);
        assertThat(line.path("path").asText()).isEqualTo("/projects/prj_1");
    }

    @Test
    void aWebhookUrlsTokenNeverReachesTheLog() {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, LogFormat.TEXT, out)) {
            log.start();
            log.request(
                    "POST",
                    "/events/hooks/hk_2fQ9xKqv0ZJ3nK6pE4rT5s8bW1cY7dA0eF3gH6iJ9kL",
                    401,
                    10_000,
                    "req_a",
                    Optional.empty());
        }
        String line = out.toString(StandardCharsets.UTF_8);
        assertThat(line).contains("path=/events/hooks/*** ").doesNotContain("hk_2fQ9x");
    }

    @Test
    void isSilentBelowInfo() {
        assertThat(AccessLog.enabledFor(null)).isTrue();
        assertThat(AccessLog.enabledFor("debug")).isTrue();
        assertThat(AccessLog.enabledFor("WARN")).isFalse();
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(false, LogFormat.TEXT, out)) {
            log.start();
            log.request("GET", "/", 200, 1, "req_x", Optional.empty());
        }
        assertThat(out.size()).isZero();
    }
}
