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
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN, "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
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

    /**
     * The writes whose answer is the resource a read shows, beyond credentials: each answered again after a crash as
     * it first answered (status, body, location) and done once (the list of its kind holds one).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "create a router",
                "save a router",
                "change a router",
                "create a custom gateway",
                "toggle a gateway",
                "create a test example"
            })
    void aWriteOfAResourceWhoseServerDiedBeforeAnsweringIsAnsweredAsItsReadShowsIt(String write) throws SQLException {
        String project = http.post("/projects", "{\"name\": \"p\"}", AS_ADMIN)
                .json()
                .path("id")
                .asText();
        String[] inProject = TestServer.with(AS_ADMIN, "X-Project-Id", project);
        String router = http.post("/routers", "{\"name\": \"kept\"}", inProject)
                .json()
                .path("id")
                .asText();
        String gateway =
                http.post("/connectors/custom", """
                        {"name": "kept", "url": "http://127.0.0.1:9/mcp", "auth_type": "none"}""", AS_ADMIN).json().path("id").asText();
        assertThat(http.post("/v1/studio/templates", """
                        {"id": "plain", "questions": {"ok": {"type": "noul"}}}""", AS_ADMIN).status()).isEqualTo(201);
        String draft = """
                {"name": "edited", "status": "draft", "dag_config": {"entry_step": "a", "steps": [
                  {"step_id": "a", "action_type": "weighted_routing", "params": {}}]}}""";
        String[] request = switch (write) {
            case "create a router" -> new String[] {"POST", "/routers", "{\"name\": \"new\"}", "/routers"};
            case "save a router" -> new String[] {"PUT", "/routers/" + router, draft, "/routers"};
            case "change a router" ->
                new String[] {
                    "PATCH", "/routers/" + router, "{\"name\": \"renamed\", \"status\": \"inactive\"}", "/routers"
                };
            case "create a custom gateway" ->
                new String[] {
                    "POST",
                    "/connectors/custom",
                    "{\"name\": \"new\", \"url\": \"http://127.0.0.1:9/mcp\", \"auth_type\": \"none\"}",
                    "/connectors/configured?include_disabled=true"
                };
            case "toggle a gateway" ->
                new String[] {
                    "PATCH",
                    "/connectors/configured/" + gateway + "/toggle",
                    null,
                    "/connectors/configured?include_disabled=true"
                };
            default ->
                new String[] {
                    "POST",
                    "/v1/studio/templates/plain/examples",
                    "{\"state\": \"s\"}",
                    "/v1/studio/templates/plain/examples"
                };
        };
        HttpReply first = http.send(request[0], request[1], request[2], keyed(inProject));
        assertThat(first.status()).as(first.body()).isBetween(200, 201);
        diedBeforeAnswering();

        HttpReply retry = http.send(request[0], request[1], request[2], keyed(inProject));

        assertThat(retry.status()).as(retry.body()).isEqualTo(first.status());
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.header("location")).isEqualTo(first.header("location"));
        assertThat(retry.header("idempotent-replayed")).isEqualTo("true");
        if (first.header("location") != null) {
            assertThat(http.get(first.header("location"), inProject).body())
                    .as("what its read shows")
                    .isEqualTo(retry.body());
        }
        int kept = write.endsWith("example") ? 0 : 1;
        int made = request[0].equals("POST") ? 1 : 0;
        assertThat(http.get(request[3], inProject).json().path("data"))
                .as("done once")
                .hasSize(kept + made);
    }

    private static String[] keyed(String[] headers) {
        return TestServer.with(headers, "Idempotency-Key", KEY);
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
