package dev.arbor.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The audit log's retention, and the local admin as a row's actor. */
class AuditRetentionTest {
    @Test
    void aChangeOlderThanTheRetentionIsPrunedAndANewerOneKept() {
        var clock = MovableClock.stoppedAt(Instant.parse("2026-01-01T00:00:00Z"));
        try (var server = ArborServer.start(Map.of("ARBOR_AUDIT_RETENTION_DAYS", "30"), clock)) {
            TestServer http = server.http();
            String old = project(http, "old");
            clock.advance(Duration.ofDays(31));
            String recent = project(http, "recent");
            assertThat(server.pruneAuditLog()).isEqualTo(1);
            assertThat(rows(http))
                    .extracting(row -> row.path("resource_id").asText())
                    .containsExactly(recent)
                    .doesNotContain(old);
        }
    }

    @Test
    void aChangeByTheLocalAdminNamesIt() {
        try (var server = ArborServer.start(Map.of())) {
            String project = project(server.http(), "local");
            JsonNode row = rows(server.http()).getFirst();
            assertThat(row.path("resource_id").asText()).isEqualTo(project);
            assertThat(row.path("actor").path("id").asText()).isEqualTo("local");
            assertThat(row.path("actor").path("name").asText()).isEqualTo("local admin");
        }
    }

    private static String project(TestServer http, String name) {
        HttpReply created = http.post("/projects", "{\"name\": \"" + name + "\"}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private static List<JsonNode> rows(TestServer http) {
        var rows = new ArrayList<JsonNode>();
        http.get("/audit?limit=100").json().path("data").forEach(rows::add);
        return rows;
    }
}
