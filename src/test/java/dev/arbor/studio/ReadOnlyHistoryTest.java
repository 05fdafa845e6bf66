package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * History that cannot be written or reached: a database a newer release migrated further is opened read-only (reads
 * work, every write is 503 {@code history_unavailable}); a database that cannot be reached makes history 503 until
 * it is back. Decisions answer throughout, with {@code history_write_failed}.
 */
class ReadOnlyHistoryTest {
    private static final String D = "/v1/studio/decisions";
    private static final String DECISION =
            "{\"model\": \"hash-decider\", \"state\": \"x\", \"questions\": " + "{\"ok\": {\"type\": \"noul\"}}}";

    @Test
    void whileTheDatabaseIsUnreachableHistoryIsUnavailableAndDecisionsStillAnswer() throws Exception {
        String url = TestPostgres.newDatabaseUrl();
        String name = url.replaceAll("^.*/([a-z_0-9]+)(\\?.*)?$", "$1");
        String admin = url.replace("/" + name, "/postgres");
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATABASE_URL", url));
                Connection db = DriverManager.getConnection(admin)) {
            TestServer http = server.http();
            String earlier = http.post(D, DECISION).json().path("id").asText();
            db.createStatement().execute("ALTER DATABASE " + name + " ALLOW_CONNECTIONS false");
            db.createStatement()
                    .execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + name + "'");
            HttpReply history = http.get(D);
            history.assertError(503, "history_unavailable", null);
            assertThat(history.header("retry-after")).isEqualTo("5");
            JsonNode decision = http.post(D, DECISION).json();
            assertThat(decision.at("/answers/ok/decision").isTextual())
                    .as(decision.toString())
                    .isTrue();
            assertThat(decision.path("warnings").findValuesAsText("code")).contains("history_write_failed");

            db.createStatement().execute("ALTER DATABASE " + name + " ALLOW_CONNECTIONS true");
            // the pool adds connections again after a back-off of up to 5 s, the retry-after the 503s named
            await("history back when the database is")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> http.get(D + "/" + earlier).status() == 200);
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void historyFromANewerReleaseIsReadButNeverWritten(Dialect dialect) throws Exception {
        Path data = TempFolders.newFolder("arbor-newer-");
        var env = new HashMap<>(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString()));
        String jdbcUrl = "jdbc:sqlite:" + data.resolve("arbor.db");
        if (dialect == Dialect.POSTGRESQL) {
            String url = TestPostgres.newDatabaseUrl();
            env.put("ARBOR_DATABASE_URL", url);
            jdbcUrl = url;
        }
        String earlier;
        try (var server = ArborServer.start(env)) {
            earlier = server.http().post(D, DECISION).json().path("id").asText();
        }
        try (Connection db = DriverManager.getConnection(jdbcUrl)) {
            db.createStatement()
                    .executeUpdate("INSERT INTO flyway_schema_history (installed_rank, version, "
                            + "description, type, script, checksum, installed_by, execution_time, success) "
                            + "VALUES (999, '999', 'from a newer release', 'SQL', 'V999__newer.sql', 0, 'test', 1, "
                            + (dialect == Dialect.SQLITE ? "1" : "true") + ")");
        }
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            assertThat(http.get(D + "/" + earlier).status()).isEqualTo(200);
            assertThat(http.get(D).json().path("data")).hasSize(1);

            HttpReply decided = http.post(D, DECISION, "Idempotency-Key", "while-read-only");
            assertThat(decided.status()).as(decided.body()).isEqualTo(200);
            JsonNode decision = decided.json();
            assertThat(decision.at("/answers/ok/decision").isTextual()).isTrue();
            assertThat(decision.path("warnings").findValuesAsText("code")).contains("history_write_failed");
            HttpReply replay = http.post(D, DECISION, "Idempotency-Key", "while-read-only");
            assertThat(replay.header("idempotent-replayed")).isEqualTo("true");
            assertThat(replay.json().path("id")).isEqualTo(decision.path("id"));

            JsonNode error = http.post(D, DECISION.replace("{\"model\"", "{\"background\": true, \"model\""))
                    .assertError(503, "history_unavailable", null);
            assertThat(error.path("message").asText()).contains("999");
            http.patch("/v1/studio/settings", "{\"history\": {\"retention_days\": 5}}")
                    .assertError(503, "history_unavailable", null);
            http.post("/v1/studio/templates", "{\"id\": \"late\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}")
                    .assertError(503, "history_unavailable", null);
            http.delete(D + "/" + earlier).assertError(503, "history_unavailable", null);
            // outside the studio the same refusal names the database
            http.post("/projects", "{\"name\": \"late\"}").assertError(503, "database_unavailable", null);
            assertThat(http.get(D + "/" + earlier).status()).isEqualTo(200);
        }
    }
}
