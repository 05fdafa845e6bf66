package dev.arbor.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that stops takes its local deployments' replicas with it, and one started again on the same data starts
 * them again: the deployment deploys anew, from no ready replica, to running.
 */
class DeploymentRestartTest {
    private static final String[] ADMIN = {"Authorization", "Bearer arb_restart_admin"};

    @TempDir
    Path data;

    @Test
    void aServerStartedAgainStartsItsLocalDeploymentsAgain() {
        var env = Map.of(
                "ARBOR_DATA", data.toString(), "ARBOR_ADMIN_TOKEN", "arb_restart_admin", "ARBOR_TEST_MODELS", "true");
        String id;
        List<Long> before;
        try (ArborServer first = ArborServer.start(env)) {
            TestServer http = first.http();
            String project = http.post("/projects", "{\"name\": \"again\"}", ADMIN)
                    .json()
                    .path("id")
                    .asText();
            HttpReply created = http.post(
                    "/deployments",
                    "{\"name\": \"again\", \"model_id\": \"hash-decider\", \"project_id\": \"" + project + "\"}",
                    ADMIN);
            assertThat(created.status()).as(created.body()).isEqualTo(202);
            id = created.json().path("id").asText();
            before = DeploymentContract.pids(running(http, id));
        }
        assertThat(before).noneMatch(DeploymentContract::alive);
        try (ArborServer second = ArborServer.start(env)) {
            JsonNode again = running(second.http(), id);
            assertThat(again.path("ready_replicas").asInt()).isEqualTo(1);
            assertThat(DeploymentContract.pids(again)).hasSize(1).doesNotContainAnyElementsOf(before);
            assertThat(again.path("endpoint_url").asText())
                    .endsWith(":" + second.http().port() + "/v1");
        }
    }

    private static JsonNode running(TestServer http, String id) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> http.get("/deployments/" + id + "?wait=5", ADMIN)
                        .json()
                        .path("status")
                        .asText()
                        .equals("running"));
        return http.get("/deployments/" + id, ADMIN).json();
    }
}
