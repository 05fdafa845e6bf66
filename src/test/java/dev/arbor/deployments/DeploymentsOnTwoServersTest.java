package dev.arbor.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestPostgres;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two servers on one PostgreSQL: the server that made a local deployment runs its replicas, the other answers changes
 * with 503 {@code deployment_on_other_server} while it runs, and takes the deployment over (starting its replicas)
 * once it is gone.
 */
class DeploymentsOnTwoServersTest {
    private static final String[] ADMIN = {"Authorization", "Bearer arb_two_admin"};

    @Test
    void aLocalDeploymentIsChangedByTheServerThatRunsItsReplicas() {
        var env = Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]),
                "ARBOR_ADMIN_TOKEN",
                "arb_two_admin",
                "ARBOR_TEST_MODELS",
                "true");
        try (ArborServer b = ArborServer.start(env)) {
            String id;
            try (ArborServer a = ArborServer.start(env)) {
                String project = a.http()
                        .post("/projects", "{\"name\": \"twins\"}", ADMIN)
                        .json()
                        .path("id")
                        .asText();
                HttpReply created = a.http()
                        .post(
                                "/deployments",
                                "{\"name\": \"twin\", \"model_id\": \"hash-decider\", \"project_id\": \"" + project
                                        + "\"}",
                                ADMIN);
                assertThat(created.status()).as(created.body()).isEqualTo(202);
                id = created.json().path("id").asText();
                assertThat(b.http().get("/deployments/" + id, ADMIN).status())
                        .as("every server reads it")
                        .isEqualTo(200);
                HttpReply refused = b.http().patch("/deployments/" + id, "{\"replicas\": 2}", ADMIN);
                refused.assertError(503, "deployment_on_other_server", "deployment_id");
                assertThat(refused.header("retry-after")).isEqualTo("1");
            }
            HttpReply taken = b.http().patch("/deployments/" + id, "{\"replicas\": 2}", ADMIN);
            assertThat(taken.status()).as(taken.body()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> b.http()
                                    .get("/deployments/" + id + "?wait=5", ADMIN)
                                    .json()
                                    .path("ready_replicas")
                                    .asInt()
                            == 2);
            assertThat(b.http().delete("/deployments/" + id, ADMIN).status()).isEqualTo(200);
        }
    }
}
