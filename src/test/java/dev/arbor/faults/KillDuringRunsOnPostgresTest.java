package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server on PostgreSQL killed (kill -9) while runs are in the middle of a step: after the restart every run
 * completes exactly once — the step cut off runs again, the steps before and after it once each. (RunRestartTest
 * proves the same for one run on SQLite.)
 */
class KillDuringRunsOnPostgresTest {
    private static final int RUNS = 8;

    @TempDir
    Path folder;

    @Test
    void runsCutOffByAKillEachCompleteOnceAfterTheRestart() throws Exception {
        try (var receiver = new HttpReceiver();
                var server = ArborProcess.serve(
                        folder.resolve("data"),
                        Map.of(
                                "ARBOR_DATABASE_URL",
                                TestPostgres.newDatabaseUrl(),
                                "ARBOR_OUTBOUND_ALLOW",
                                "127.0.0.1"))) {
            TestServer http = server.http();
            receiver.hold("/held");
            String pipeline = http.post("/pipelines", """
                    {"name": "survives", "parameters": [{"name": "n", "type": "integer", "required": true}],
                     "steps": [
                      {"id": "before", "action": "http_request", "params": {"url": "%1$s/before/{{ params.n }}"}},
                      {"id": "call", "action": "http_request", "depends_on": ["before"],
                       "params": {"url": "%1$s/held", "method": "POST", "body": {"n": "{{ params.n }}"}}},
                      {"id": "after", "action": "http_request", "depends_on": ["call"],
                       "params": {"url": "%1$s/after/{{ params.n }}"}}]}""".formatted(receiver.url("")))
                    .json()
                    .path("id")
                    .asText();
            List<String> runs = new ArrayList<>();
            for (int n = 0; n < RUNS; n++) {
                runs.add(http.post("/pipelines/" + pipeline + "/runs", "{\"params\": {\"n\": " + n + "}}")
                        .json()
                        .path("id")
                        .asText());
            }
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> receiver.received("/held").size() == RUNS);

            server.kill();
            receiver.release("/held");
            server.start();

            for (int n = 0; n < RUNS; n++) {
                String run = runs.get(n);
                StatusWaits.until(http, "/runs/" + run, "completed", Duration.ofSeconds(60));
                assertThat(receiver.received("/before/" + n))
                        .as("run %d, before", n)
                        .hasSize(1);
                assertThat(receiver.received("/after/" + n))
                        .as("run %d, after", n)
                        .hasSize(1);
                JsonNode steps = http.get("/runs/" + run).json().path("steps");
                steps.forEach(step -> assertThat(step.path("attempts").asInt())
                        .as(step.toString())
                        .isEqualTo(step.path("id").asText().equals("call") ? 2 : 1));
            }
            assertThat(receiver.received("/held"))
                    .as("each cut-off call once more")
                    .hasSize(2 * RUNS);
            assertThat(http.get("/pipelines/" + pipeline + "/runs?limit=100")
                            .json()
                            .path("data"))
                    .as("no run started twice")
                    .hasSize(RUNS);
        }
    }
}
