package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server killed (kill -9) while a local deployment deploys, scales or is deleted: after the restart the deployment
 * converges (running with the replicas asked, or gone), no replica worker of the killed server is left running, and
 * no deployment is left half-changed (none stays {@code deleting}, {@code pending}, {@code deploying} or
 * {@code scaling}).
 */
class KillDuringDeploymentChangeTest {
    private static final String TOKEN = "arb_kill_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + TOKEN};

    @TempDir
    Path folder;

    @Test
    void killedWhileDeployingTheDeploymentRunsAfterTheRestart() throws Exception {
        try (var server = serve()) {
            TestServer http = server.http();
            String id = create(http, "deploying", 4);
            // four workers take a while to start on a small machine: the kill comes once the first has a process
            var seen = new AtomicReference<JsonNode>();
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        seen.set(http.get("/deployments/" + id, ADMIN).json());
                        return !pids(seen.get()).isEmpty();
                    });
            // not yet running: its status may still say pending while the first workers start
            assertThat(seen.get().path("status").asText())
                    .as(seen.get().toString())
                    .isIn("pending", "deploying");
            killAndRestart(server, pids(seen.get()), id, 4);
        }
    }

    @Test
    void killedWhileScalingTheDeploymentRunsWithTheReplicasAsked() throws Exception {
        try (var server = serve()) {
            TestServer http = server.http();
            String id = create(http, "scaling", 1);
            List<Long> before = pids(running(http, id, 1));
            HttpReply scaled = http.patch("/deployments/" + id, "{\"replicas\": 3}", ADMIN);
            assertThat(scaled.status()).as(scaled.body()).isEqualTo(202);

            killAndRestart(server, before, id, 3);
        }
    }

    @Test
    void killedWhileDeletingTheDeploymentIsGoneOrRunsAfterTheRestart() throws Exception {
        try (var server = serve()) {
            TestServer http = server.http();
            String id = create(http, "deleting", 2);
            List<Long> before = pids(running(http, id, 2));
            // the delete stops the replicas before it answers: the kill comes while it does
            CompletableFuture<HttpReply> deleting =
                    CompletableFuture.supplyAsync(() -> http.delete("/deployments/" + id, ADMIN));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> deleting.isDone()
                            || http.get("/deployments/" + id, ADMIN)
                                    .json()
                                    .path("status")
                                    .asText()
                                    .equals("deleting"));
            server.kill();
            deleting.handle((reply, failure) -> null).join();
            awaitGone(before);
            server.start();

            HttpReply after = http.get("/deployments/" + id, ADMIN);
            if (after.status() == 200) { // the kill came before the delete was recorded: as if it was never asked
                running(http, id, 2);
                assertThat(http.delete("/deployments/" + id, ADMIN).status()).isEqualTo(200);
            }
            http.get("/deployments/" + id, ADMIN).assertError(404, "deployment_not_found", "deployment_id");
            assertNothingHalfChanged(http);
        }
    }

    /**
     * Kills the server while the workers {@code before} run, starts it again, and checks that the deployment runs
     * {@code replicas} workers, none of them from before, and that nothing is left half-changed.
     */
    private static void killAndRestart(ArborProcess server, List<Long> before, String id, int replicas)
            throws InterruptedException {
        server.kill();
        awaitGone(before);
        server.start();

        TestServer http = server.http();
        JsonNode running = running(http, id, replicas);
        assertThat(pids(running)).hasSize(replicas).doesNotContainAnyElementsOf(before);
        assertNothingHalfChanged(http);
    }

    private ArborProcess serve() {
        return ArborProcess.serve(folder.resolve("data"), Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_ADMIN_TOKEN", TOKEN));
    }

    /** A deployment of the test model with this many replicas, asked for now; its id. */
    private static String create(TestServer http, String name, int replicas) {
        String project = http.post("/projects", "{\"name\": \"" + name + "\"}", ADMIN)
                .json()
                .path("id")
                .asText();
        HttpReply created = http.post(
                "/deployments",
                "{\"name\": \"" + name + "\", \"model_id\": \"hash-decider\", \"project_id\": \"" + project
                        + "\", \"replicas\": " + replicas + "}",
                ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        return created.json().path("id").asText();
    }

    private static JsonNode running(TestServer http, String id, int replicas) {
        await().atMost(Duration.ofSeconds(120)).until(() -> {
            JsonNode deployment =
                    http.get("/deployments/" + id + "?wait=5", ADMIN).json();
            return deployment.path("status").asText().equals("running")
                    && deployment.path("ready_replicas").asInt() == replicas;
        });
        return http.get("/deployments/" + id, ADMIN).json();
    }

    /** No deployment is left on its way: each runs or failed (a test model does not fail). */
    private static void assertNothingHalfChanged(TestServer http) {
        JsonNode list = http.get("/deployments", ADMIN).json().path("data");
        list.forEach(d -> assertThat(d.path("status").asText()).as(d.toString()).isEqualTo("running"));
    }

    /** The killed server's replica workers end with it (their end of its pipe closes): none is left behind. */
    private static void awaitGone(List<Long> pids) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> pids.stream()
                        .noneMatch(pid -> ProcessHandle.of(pid)
                                .map(ProcessHandle::isAlive)
                                .orElse(false)));
    }

    private static List<Long> pids(JsonNode deployment) {
        var pids = new ArrayList<Long>();
        deployment.path("replicas_detail").forEach(r -> {
            if (r.path("pid").asLong() > 0) { // a replica whose process has not started yet has none
                pids.add(r.path("pid").asLong());
            }
        });
        return pids;
    }
}
