package dev.arbor.platform.http.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AccessLogTest {

    @Test
    void writesOneLogfmtLinePerRequest() {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, out)) {
            log.start();
            log.request("GET", "/projects/prj_1", 404, 1_234_567, "req_abc");
            log.request("POST", "/odd path\"", 201, 10_000, "req_def");
        }
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertThat(lines).hasSize(2);
        assertThat(lines[0])
                .matches("\\d{4}-\\d\\d-\\d\\dT\\S+Z INFO  access method=GET path=/projects/prj_1 "
                        + "status=404 duration_ms=1.23 request_id=req_abc");
        assertThat(lines[1]).contains("path=\"/odd path\\\"\"").contains("status=201");
    }

    @Test
    void aWebhookUrlsTokenNeverReachesTheLog() {
        var out = new ByteArrayOutputStream();
        try (var log = new AccessLog(true, out)) {
            log.start();
            log.request("POST", "/events/hooks/hk_2fQ9xKqv0ZJ3nK6pE4rT5s8bW1cY7dA0eF3gH6iJ9kL", 401, 10_000, "req_a");
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
        try (var log = new AccessLog(false, out)) {
            log.start();
            log.request("GET", "/", 200, 1, "req_x");
        }
        assertThat(out.size()).isZero();
    }
}
