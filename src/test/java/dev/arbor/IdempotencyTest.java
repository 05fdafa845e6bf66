package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Contract 7.2 and 7.6: a retry with the same key does not run twice. */
class IdempotencyTest {
    private ProbeRoutes probe;
    private ArborServer server;
    private TestServer http;

    @BeforeEach
    void start() {
        probe = new ProbeRoutes();
        server = ArborServer.start(Map.of(), probe);
        http = server.http();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void sameKeyAndBodyReplaysTheStoredResponse() {
        HttpReply first = http.post("/projects", "{\"name\":\"alpha\"}", "Idempotency-Key", "k-1");
        HttpReply second = http.post("/projects", "{\"name\":\"alpha\"}", "Idempotency-Key", "k-1");

        assertThat(first.status()).isEqualTo(201);
        assertThat(second.status()).isEqualTo(201);
        assertThat(second.body()).isEqualTo(first.body());
        assertThat(second.header("location")).isEqualTo(first.header("location"));
        assertThat(second.header("idempotent-replayed")).isEqualTo("true");
        assertThat(first.header("idempotent-replayed")).isNull();
        assertThat(second.header("x-request-id")).isNotEqualTo(first.header("x-request-id"));
        assertThat(http.get("/projects").json().path("data")).hasSize(1);
    }

    @Test
    void aTokensAnswerIsKeptForRetriesButNotReadableOnDisk() throws Exception {
        String admin = "arb_bootstrap-admin-token-for-this-test";
        try (var withAdmin = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", admin))) {
            String body = "{\"name\":\"ops\",\"role\":\"admin\"}";
            HttpReply first = withAdmin
                    .http()
                    .post("/auth/tokens", body, "Authorization", "Bearer " + admin, "Idempotency-Key", "k-token");
            HttpReply retried = withAdmin
                    .http()
                    .post("/auth/tokens", body, "Authorization", "Bearer " + admin, "Idempotency-Key", "k-token");

            String secret = first.json().path("token").asText();
            assertThat(secret).startsWith("arb_");
            assertThat(retried.header("idempotent-replayed")).isEqualTo("true");
            assertThat(retried.body()).isEqualTo(first.body());
            byte[] marker = secret.getBytes(StandardCharsets.UTF_8);
            try (Stream<Path> files = Files.list(withAdmin.dataDir())) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    assertThat(indexOf(Files.readAllBytes(file), marker))
                            .as("where %s holds the token", file)
                            .isEqualTo(-1);
                }
            }
        }
    }

    @Test
    void theDataFolderAndTheDatabaseAreTheOwnersOnly() throws Exception {
        http.post("/projects", "{\"name\":\"alpha\"}");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(server.dataDir())))
                .isEqualTo("rwx------");
        for (String file : List.of("arbor.db", "arbor.db-wal", "arbor.db-shm", "secret.key")) {
            assertThat(PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(server.dataDir().resolve(file))))
                    .as(file)
                    .isEqualTo("rw-------");
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void sameKeyWithAnotherBodyIsRefused() {
        http.post("/projects", "{\"name\":\"alpha\"}", "Idempotency-Key", "k-2");
        http.post("/projects", "{\"name\":\"beta\"}", "Idempotency-Key", "k-2")
                .assertError(409, "idempotency_key_reused", "Idempotency-Key");
        assertThat(http.get("/projects").json().path("data")).hasSize(1);
    }

    @Test
    void keyStillRunningGivesInProgressWithRetryAfter() throws Exception {
        CompletableFuture<HttpReply> running =
                CompletableFuture.supplyAsync(() -> http.post("/probe/slow", "{}", "Idempotency-Key", "k-3"));
        assertThat(probe.entered.await(10, TimeUnit.SECONDS)).isTrue();

        HttpReply busy = http.post("/probe/slow", "{}", "Idempotency-Key", "k-3");
        busy.assertError(409, "idempotency_in_progress", "Idempotency-Key");
        assertThat(busy.header("retry-after")).isEqualTo("1");

        probe.release.countDown();
        assertThat(running.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        HttpReply replay = http.post("/probe/slow", "{}", "Idempotency-Key", "k-3");
        assertThat(replay.json().path("run").asInt()).isEqualTo(1);
        assertThat(probe.runs.get()).isEqualTo(1);
    }

    @Test
    void failedRequestReleasesItsKey() {
        http.post("/probe/count", "{\"fail\": true}", "Idempotency-Key", "k-4")
                .assertError(400, "invalid_field", "fail");
        HttpReply retried = http.post("/probe/count", "{\"fail\": true}", "Idempotency-Key", "k-4");
        retried.assertError(400, "invalid_field", "fail");
        assertThat(retried.header("idempotent-replayed")).isNull();

        http.post("/projects", "{\"name\":\"taken\"}");
        http.post("/projects", "{\"name\":\"taken\"}", "Idempotency-Key", "k-5")
                .assertError(409, "project_exists", "name");
        String id = http.get("/projects").json().path("data").path(0).path("id").asText();
        http.delete("/projects/" + id);
        assertThat(http.post("/projects", "{\"name\":\"taken\"}", "Idempotency-Key", "k-5")
                        .status())
                .isEqualTo(201);
    }

    @Test
    void keyOverTheLimitIsAnInvalidParameter() {
        JsonNode error = http.post("/probe/count", "{}", "Idempotency-Key", "k".repeat(256))
                .assertError(400, "invalid_parameter", "Idempotency-Key");
        assertThat(error.path("message").asText()).contains("255");
        assertThat(http.post("/probe/count", "{}", "Idempotency-Key", "k".repeat(255))
                        .status())
                .isEqualTo(200);
        assertThat(probe.runs.get()).isEqualTo(1);
    }

    @Test
    void keysAreScopedToTheCallersCredentials() {
        HttpReply admin = http.post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}");
        String token = admin.json().path("token").asText();

        http.post("/probe/count", "{}", "Idempotency-Key", "shared", "Authorization", "Bearer " + token);
        HttpReply other =
                http.post("/probe/count", "{}", "Idempotency-Key", "shared", "Authorization", "Bearer " + token);
        assertThat(other.header("idempotent-replayed")).isEqualTo("true");
        assertThat(probe.runs.get()).isEqualTo(1);
    }

    @Test
    void readsIgnoreTheKey() {
        assertThat(http.get("/projects", "Idempotency-Key", "k".repeat(300)).status())
                .isEqualTo(200);
    }
}
