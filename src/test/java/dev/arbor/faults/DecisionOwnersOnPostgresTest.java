package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Background decisions belong to the server that queued them: with two servers on one PostgreSQL, a replica that
 * restarts leaves the other's running decisions alone, and a replica killed (kill -9) has its decisions failed once
 * its heartbeat is stale, or at once when it starts again on its data folder. (KillDuringDecisionTest proves the
 * one-server case on SQLite.)
 */
class DecisionOwnersOnPostgresTest {
    private static final String D = "/v1/studio/decisions";

    @TempDir
    Path folder;

    /** Servers on one new database, sharing their secret key as replicas do, with a heartbeat every so many seconds. */
    private static Map<String, String> replicas(int heartbeatSeconds) {
        return Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]),
                "ARBOR_TEST_MODELS",
                "1",
                "ARBOR_HEARTBEAT_SECONDS",
                Integer.toString(heartbeatSeconds));
    }

    @Test
    void aReplicaThatRestartsLeavesTheOtherReplicasRunningDecisionToFinish() throws Exception {
        var env = replicas(1);
        try (var a = ArborProcess.serve(folder.resolve("a"), env);
                var b = ArborProcess.serve(folder.resolve("b"), env)) {
            // the answer takes longer than b takes to start again: b's start and its sweeps see it running
            String id = runningDecision(a.http(), 30_000);

            b.kill();
            b.start();

            assertThat(status(b.http(), id)).isEqualTo("in_progress");
            await().atMost(Duration.ofSeconds(90))
                    .until(() -> !status(b.http(), id).equals("in_progress"));
            JsonNode decision = b.http().get(D + "/" + id).json();
            assertThat(decision.path("status").asText()).as(decision.toString()).isEqualTo("completed");
        }
    }

    @Test
    void aKilledReplicasRunningDecisionFailsOnceItsHeartbeatIsStale() throws Exception {
        var env = replicas(1);
        try (var a = ArborProcess.serve(folder.resolve("a"), env);
                var b = ArborProcess.serve(folder.resolve("b"), env)) {
            String id = runningDecision(a.http(), 600_000);

            a.kill();

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(b.http(), id).equals("failed"));
            JsonNode error = b.http().get(D + "/" + id).json().path("error");
            assertThat(error.path("code").asText()).isEqualTo("internal_error");
            assertThat(error.path("message").asText())
                    .as(error.toString())
                    .contains("The server stopped while this decision was queued or running")
                    .containsPattern("its server, srv_\\w+, sent no heartbeat for \\d+ s \\(stopped after 4 s\\)");
        }
    }

    @Test
    void aKilledServerStartedAgainOnItsDataFolderFailsItsDecisionsWithoutWaitingForTheHeartbeat() throws Exception {
        // a heartbeat stale only after 20 minutes: what fails the decision is the start, not the heartbeat
        var env = replicas(300);
        try (var a = ArborProcess.serve(folder.resolve("a"), env);
                var b = ArborProcess.serve(folder.resolve("b"), env)) {
            String id = runningDecision(a.http(), 600_000);

            a.kill();
            assertThat(status(b.http(), id)).as("the other replica waits").isEqualTo("in_progress");
            a.start();

            JsonNode decision = b.http().get(D + "/" + id).json();
            assertThat(decision.path("status").asText()).as(decision.toString()).isEqualTo("failed");
            assertThat(decision.at("/error/message").asText())
                    .containsPattern("its server, srv_\\w+, no longer runs on this machine and data folder");
        }
    }

    /** A background decision on {@code server} that is running and whose answer takes {@code scoreMillis}. */
    private static String runningDecision(TestServer server, int scoreMillis) {
        server.post("/models/hash-decider/load", "{\"options\": {\"score_delay_ms\": \"%d\"}}".formatted(scoreMillis));
        await().atMost(Duration.ofSeconds(60))
                .until(() -> server.get("/models/hash-decider")
                        .json()
                        .path("status")
                        .asText()
                        .equals("loaded"));
        JsonNode queued = server.post(D, """
                {"background": true, "model": "hash-decider", "state": "a long case",
                 "questions": {"ok": {"type": "noul"}}}""").json();
        assertThat(queued.path("status").asText()).as(queued.toString()).isEqualTo("queued");
        String id = queued.path("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(server, id).equals("in_progress"));
        return id;
    }

    private static String status(TestServer server, String id) {
        return server.get(D + "/" + id).json().path("status").asText();
    }
}
