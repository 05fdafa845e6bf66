package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed (kill -9) while background decisions are queued and running: after the restart each of them is
 * there, failed with the error contract 4 documents for a studio restart, never lost and never run again silently.
 */
class KillDuringDecisionTest {
    private static final String D = "/v1/studio/decisions";
    private static final int DECISIONS = 4;

    @TempDir
    Path folder;

    @Test
    void decisionsQueuedOrRunningWhenTheServerIsKilledAreFailedAfterTheRestart() throws Exception {
        try (var server = ArborProcess.serve(folder.resolve("data"), Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            // each answer takes a minute: the kill comes while one runs and the others wait
            http.post("/models/hash-decider/load", "{\"options\": {\"score_delay_ms\": \"60000\"}}");
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> http.get("/models/hash-decider")
                            .json()
                            .path("status")
                            .asText()
                            .equals("loaded"));
            List<String> ids = new ArrayList<>();
            for (int n = 0; n < DECISIONS; n++) {
                JsonNode queued = http.post(D, """
                        {"background": true, "model": "hash-decider", "state": "case %d",
                         "questions": {"ok": {"type": "noul"}}}""".formatted(n)).json();
                assertThat(queued.path("status").asText()).as(queued.toString()).isEqualTo("queued");
                ids.add(queued.path("id").asText());
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> ids.stream().anyMatch(id -> status(http, id).equals("in_progress")));

            server.kill();
            server.start();

            for (String id : ids) {
                JsonNode decision = http.get(D + "/" + id).json();
                assertThat(decision.path("status").asText())
                        .as(decision.toString())
                        .isEqualTo("failed");
                assertThat(decision.at("/error/code").asText()).isEqualTo("internal_error");
                assertThat(decision.at("/error/message").asText())
                        .contains("The server stopped while this decision was queued or running");
            }
        }
    }

    private static String status(TestServer http, String id) {
        return http.get(D + "/" + id).json().path("status").asText();
    }
}
