package dev.arbor.pipelines.runs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two servers on one PostgreSQL, each looking every second for room for the queued runs of a pipeline capped at two
 * running runs: never a third runs at once, and each run that ends lets exactly one more start.
 */
class RunLimitsOnTwoServersTest {
    @Test
    void twoServersNeverRunMoreRunsOfACappedPipelineThanItsCap() throws Exception {
        Map<String, String> env = Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]));
        try (ArborServer a = ArborServer.start(env);
                ArborServer b = ArborServer.start(env)) {
            List<TestServer> servers = List.of(a.http(), b.http());
            String pipeline =
                    servers.getFirst().post("/pipelines", """
                    {"name": "capped", "max_concurrent_runs": 2, "steps": [
                      {"id": "ask", "action": "approval", "params": {"message": "go?", "approvers": ["role:admin"]}},
                      {"id": "after", "action": "log", "depends_on": ["ask"], "params": {"message": "after"}}]}""").json().path("id").asText();
            var started = new ArrayList<String>();
            for (int i = 0; i < 6; i++) {
                started.add(servers.get(i % 2)
                        .post("/pipelines/" + pipeline + "/runs", "{}")
                        .json()
                        .path("id")
                        .asText());
            }
            Set<String> seenRunning = new HashSet<>();
            for (int round = 0; round < 3; round++) {
                TestServer server = servers.get(round % 2);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> running(server, pipeline).size() == 2);
                // both servers look again every second: over three seconds neither lets a third start
                await().during(Duration.ofSeconds(3))
                        .atMost(Duration.ofSeconds(10))
                        .until(() -> running(server, pipeline).size() == 2);
                List<String> now = running(server, pipeline);
                assertThat(seenRunning).doesNotContainAnyElementsOf(now);
                seenRunning.addAll(now);
                for (String run : now) {
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> RunContract.step(
                                            server.get("/runs/" + run).json(), "ask")
                                    .path("status")
                                    .asText()
                                    .equals("waiting"));
                    assertThat(server.post("/runs/" + run + "/steps/ask/approval", "{\"decision\": \"approved\"}")
                                    .status())
                            .isEqualTo(200);
                    assertThat(RunContract.finished(server, run).path("status").asText())
                            .isEqualTo("completed");
                }
            }
            assertThat(seenRunning).containsExactlyInAnyOrderElementsOf(started);
        }
    }

    private static List<String> running(TestServer server, String pipeline) {
        var ids = new ArrayList<String>();
        for (JsonNode run : server.get("/pipelines/" + pipeline + "/runs?status=running")
                .json()
                .path("data")) {
            ids.add(run.path("id").asText());
        }
        return ids;
    }
}
