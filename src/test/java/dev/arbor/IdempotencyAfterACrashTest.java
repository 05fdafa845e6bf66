package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The states a kill -9 leaves a key in, each made exactly (KillDuringKeyedWritesTest finds them by chance): a request
 * whose work committed on a server that died before its answer was kept is answered from what it stored, never run
 * again; one whose work never committed runs again; one whose answer cannot be made again is refused, never run again.
 */
class IdempotencyAfterACrashTest {
    private static final String KEY = "crash-1";
    /** Every call is an admin's: once a token is made, callers on this computer are no longer one. */
    private static final String ADMIN = "arb_idempotency-after-a-crash-admin";

    private static final String[] AS_ADMIN = {"Authorization", "Bearer " + ADMIN};
    private ArborServer server;
    private TestServer http;

    @BeforeEach
    void start() {
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN));
        http = server.http();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"create", "replace", "delete"})
    void aWriteWhoseServerDiedBeforeAnsweringIsAnsweredFromWhatItStored(String kind) throws SQLException {
        String existing = http.post("/credentials", "{\"name\": \"kept\", \"value\": \"s\"}", AS_ADMIN)
                .json()
                .path("id")
                .asText();
        String[] write = switch (kind) {
            case "create" -> new String[] {"POST", "/credentials", "{\"name\": \"new\", \"value\": \"s\"}"};
            case "replace" -> new String[] {"PUT", "/credentials/" + existing, "{\"value\": \"changed\"}"};
            default -> new String[] {"DELETE", "/credentials/" + existing, null};
        };
        HttpReply first = send(write[0], write[1], write[2], KEY);
        diedBeforeAnswering();

        HttpReply retry = send(write[0], write[1], write[2], KEY);

        assertThat(retry.status()).as(retry.body()).isEqualTo(first.status());
        if (kind.equals("delete")) {
            // the envelope again; warnings the delete gave (a router still naming it) are not kept
            first.json().fieldNames().forEachRemaining(field -> {
                if (!field.equals("warnings")) {
                    assertThat(retry.json().path(field))
                            .as(field)
                            .isEqualTo(first.json().path(field));
                }
            });
        } else {
            assertThat(retry.body()).isEqualTo(first.body());
        }
        assertThat(retry.header("location")).isEqualTo(first.header("location"));
        assertThat(retry.header("idempotent-replayed")).isEqualTo("true");
        assertThat(http.get("/credentials", AS_ADMIN).json().path("data"))
                .as("done once")
                .hasSize(kind.equals("create") ? 2 : kind.equals("delete") ? 0 : 1);
    }

    @Test
    void aRunStartedBeforeTheServerDiedIsAnsweredNotStartedAgain() throws SQLException {
        String pipeline =
                http.post("/pipelines", """
                        {"name": "p", "steps": [{"id": "say", "action": "log", "params": {"message": "hi"}}]}""", AS_ADMIN).json().path("id").asText();
        HttpReply first = send("POST", "/pipelines/" + pipeline + "/runs", "{}", KEY);
        diedBeforeAnswering();

        HttpReply retry = send("POST", "/pipelines/" + pipeline + "/runs", "{}", KEY);

        assertThat(retry.status()).as(retry.body()).isEqualTo(202);
        assertThat(retry.json().path("id")).isEqualTo(first.json().path("id"));
        assertThat(retry.header("location")).isEqualTo(first.header("location"));
        assertThat(http.get("/pipelines/" + pipeline + "/runs", AS_ADMIN).json().path("data"))
                .hasSize(1);
    }

    @Test
    void aKeyWhoseWorkNeverCommittedRunsAgain() throws SQLException {
        HttpReply first = send("POST", "/credentials", "{\"name\": \"new\", \"value\": \"s\"}", KEY);
        http.delete("/credentials/" + first.json().path("id").asText(), AS_ADMIN);
        diedBeforeAnswering();
        sql("UPDATE idempotency_keys SET committed_at = NULL, minted = NULL");

        HttpReply retry = send("POST", "/credentials", "{\"name\": \"new\", \"value\": \"s\"}", KEY);

        assertThat(retry.status()).as(retry.body()).isEqualTo(201);
        assertThat(retry.header("idempotent-replayed")).isNull();
        assertThat(retry.json().path("id")).isNotEqualTo(first.json().path("id"));
    }

    @Test
    void aWriteWhoseAnswerCannotBeMadeAgainIsRefusedAndNotRunTwice() throws SQLException {
        String body = "{\"name\": \"ops\", \"role\": \"admin\"}";
        HttpReply first = send("POST", "/auth/tokens", body, KEY);
        assertThat(first.status()).isEqualTo(201);
        diedBeforeAnswering();

        send("POST", "/auth/tokens", body, KEY).assertError(409, "idempotency_answer_lost", "Idempotency-Key");
        send("POST", "/auth/tokens", body, KEY).assertError(409, "idempotency_answer_lost", "Idempotency-Key");

        JsonNode tokens = http.get("/auth/tokens", AS_ADMIN).json().path("data");
        assertThat(StreamSupport.stream(tokens.spliterator(), false)
                        .filter(token -> token.path("name").asText().equals("ops")))
                .hasSize(1);
    }

    private HttpReply send(String method, String path, String body, String key) {
        return http.send(method, path, body, TestServer.with(AS_ADMIN, "Idempotency-Key", key));
    }

    /**
     * Leaves the key as a kill between the commit of its request's work and the keeping of its answer does: still
     * running, no answer, its server (another one, on SQLite) gone.
     */
    private void diedBeforeAnswering() throws SQLException {
        sql("UPDATE idempotency_keys SET state = 'in_progress', status_code = NULL, response_headers = NULL, "
                + "response_body = NULL, owner = 'srv_gone'");
    }

    private void sql(String update) throws SQLException {
        try (var connection = DriverManager.getConnection(
                        "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"));
                var statement = connection.createStatement()) {
            statement.setQueryTimeout(10);
            assertThat(statement.executeUpdate(update)).as(update).isEqualTo(1);
        }
    }
}
