package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A server killed (kill -9) while many writes with an {@code Idempotency-Key} are in flight, one of each kind a write
 * answers (RebuildTest shows every keyed route of the table is one of them): a create, a start of something that runs
 * on, a replace, an action on a resource, a delete and a write whose answer cannot be made again. After the restart
 * every request is sent again with its key: each answers as it would have (the last kind: or refuses with
 * idempotency_answer_lost when its work had committed), none does its work twice (a run is not started again, a
 * credential is not refused as existing), and those answered before the kill replay the same answer.
 */
class KillDuringKeyedWritesTest {
    private static final int EACH = 12;
    /** Every call is an admin's: once a token is made, callers on this computer are no longer one. */
    private static final String ADMIN = "arb_kill-during-keyed-writes-admin";

    private static final String[] AS_ADMIN = {"Authorization", "Bearer " + ADMIN};

    /** The kinds of writes, by how their answer is found again, with their success status. */
    enum Kind {
        CREATE(201),
        START(202),
        REPLACE(200),
        ACTION(200),
        DELETE(200),
        /** A token: its secret is shown once, so its answer cannot be made again; a retry is refused, never run. */
        SECRET_ONCE(201);

        final int status;

        Kind(int status) {
            this.status = status;
        }
    }

    record Write(Kind kind, int n, String method, String path, String body) {
        String key() {
            return "kill-" + kind + "-" + n;
        }

        HttpReply send(TestServer http) {
            return http.send(method, path, body, "Authorization", "Bearer " + ADMIN, "Idempotency-Key", key());
        }

        @Override
        public String toString() {
            return method + " " + path + " (" + key() + ")";
        }
    }

    @TempDir
    Path folder;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"sqlite", "postgresql"})
    void everyRequestCutOffByAKillAnswersOnRetryAndDoesItsWorkOnce(String database) throws Exception {
        var env = new HashMap<String, String>(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_ADMIN_TOKEN", ADMIN));
        if (database.equals("postgresql")) {
            env.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
        }
        try (var receiver = new HttpReceiver();
                var server = ArborProcess.serve(folder.resolve("data"), env)) {
            TestServer http = server.http();
            receiver.hold("/held");
            String pipeline = http.post("/pipelines", """
                    {"name": "held", "steps": [
                      {"id": "call", "action": "http_request", "params": {"url": "%s", "method": "POST"}}]}""".formatted(receiver.url("/held")), AS_ADMIN)
                    .json()
                    .path("id")
                    .asText();
            var writes = new ArrayList<Write>();
            for (int n = 0; n < EACH; n++) {
                String kept = credential(http, "kept-" + n);
                String gone = credential(http, "gone-" + n);
                String running = http.post("/pipelines/" + pipeline + "/runs", "{}", AS_ADMIN)
                        .json()
                        .path("id")
                        .asText();
                writes.add(new Write(
                        Kind.CREATE, n, "POST", "/credentials", "{\"name\": \"new-" + n + "\", \"value\": \"s\"}"));
                writes.add(new Write(Kind.START, n, "POST", "/pipelines/" + pipeline + "/runs", "{}"));
                writes.add(new Write(
                        Kind.REPLACE, n, "PUT", "/credentials/" + kept, "{\"value\": \"changed-" + n + "\"}"));
                writes.add(new Write(Kind.ACTION, n, "POST", "/runs/" + running + "/cancel", null));
                writes.add(new Write(Kind.DELETE, n, "DELETE", "/credentials/" + gone, null));
                writes.add(new Write(
                        Kind.SECRET_ONCE,
                        n,
                        "POST",
                        "/auth/tokens",
                        "{\"name\": \"t-" + n + "\", \"role\": \"admin\"}"));
            }

            Map<Write, HttpReply> answered = new ConcurrentHashMap<>();
            ExecutorService senders = Executors.newFixedThreadPool(16);
            for (Write write : writes) {
                senders.execute(() -> {
                    try {
                        answered.put(write, write.send(http));
                    } catch (RuntimeException cutOff) {
                        // the kill closed its connection before an answer came: the caller retries
                    }
                });
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> answered.size() >= writes.size() / 4);
            server.kill();
            senders.shutdown();
            assertThat(senders.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            List<Write> unanswered =
                    writes.stream().filter(w -> !answered.containsKey(w)).toList();
            assertThat(unanswered).as("requests the kill cut off").isNotEmpty();
            server.start();

            var retried = new HashMap<Write, HttpReply>();
            for (Write write : writes) {
                HttpReply retry = await().atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> write.send(http), reply -> !inProgress(reply));
                HttpReply first = answered.get(write);
                if (write.kind() == Kind.SECRET_ONCE && retry.status() == 409) {
                    assertThat(first)
                            .as("%s was answered, so it replays", write)
                            .isNull();
                    retry.assertError(409, "idempotency_answer_lost", "Idempotency-Key");
                    continue;
                }
                assertThat(retry.status()).as("%s: %s", write, retry.body()).isEqualTo(write.kind().status);
                if (first != null && first.status() == write.kind().status) {
                    assertThat(retry.body()).as("%s replayed", write).isEqualTo(first.body());
                }
                retried.put(write, retry);
            }

            JsonNode credentials =
                    http.get("/credentials?limit=100", AS_ADMIN).json().path("data");
            for (int n = 0; n < EACH; n++) {
                int each = n;
                List<JsonNode> created = StreamSupport.stream(credentials.spliterator(), false)
                        .filter(c -> c.path("name").asText().equals("new-" + each))
                        .toList();
                assertThat(created).as("new-%d created once", n).hasSize(1);
                Write create = new Write(Kind.CREATE, n, "POST", "/credentials", null);
                assertThat(retried.entrySet().stream()
                                .filter(e -> e.getKey().kind() == Kind.CREATE
                                        && e.getKey().n() == each)
                                .findFirst()
                                .orElseThrow()
                                .getValue()
                                .json()
                                .path("id")
                                .asText())
                        .as("%s answers the credential it made", create)
                        .isEqualTo(created.getFirst().path("id").asText());
            }
            assertThat(credentials)
                    .as("kept, and new once each; the deleted gone")
                    .hasSize(2 * EACH);
            List<String> started = retried.entrySet().stream()
                    .filter(e -> e.getKey().kind() == Kind.START)
                    .map(e -> e.getValue().json().path("id").asText())
                    .toList();
            JsonNode runs = http.get("/pipelines/" + pipeline + "/runs?limit=100", AS_ADMIN)
                    .json()
                    .path("data");
            assertThat(runs)
                    .as("the runs cancelled, and those started once each")
                    .hasSize(2 * EACH);
            assertThat(StreamSupport.stream(runs.spliterator(), false)
                            .map(run -> run.path("id").asText())
                            .toList())
                    .containsAll(started);
            assertThat(started).doesNotHaveDuplicates();
            JsonNode tokens =
                    http.get("/auth/tokens?limit=100", AS_ADMIN).json().path("data");
            for (int n = 0; n < EACH; n++) {
                String name = "t-" + n;
                assertThat(StreamSupport.stream(tokens.spliterator(), false)
                                .filter(token -> token.path("name").asText().equals(name)))
                        .as("token %s made once", name)
                        .hasSize(1);
            }
            receiver.release("/held");
        }
    }

    private static String credential(TestServer http, String name) {
        return http.post("/credentials", "{\"name\": \"" + name + "\", \"value\": \"s\"}", AS_ADMIN)
                .json()
                .path("id")
                .asText();
    }

    private static boolean inProgress(HttpReply reply) {
        return reply.status() == 409 && reply.body().contains("\"idempotency_in_progress\"");
    }
}
