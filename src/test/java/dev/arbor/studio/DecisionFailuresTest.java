package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What happens when things go wrong after a decision is accepted: the model refuses, crashes, cannot load or is
 * not loaded; history cannot be written; the server stops with decisions in flight.
 */
class DecisionFailuresTest {
    private static final String D = "/v1/studio/decisions";
    private static final Map<String, String> TEST_MODELS = Map.of("ARBOR_TEST_MODELS", "1");

    private static String decision(String model, String state) {
        return "{\"model\": \"" + model + "\", \"state\": \"" + state + "\", \"questions\": {\"ok\": {\"type\": "
                + "\"noul\"}, \"kind\": {\"type\": \"choice\", \"criteria\": [\"a\", \"b\"]}}}";
    }

    private static void awaitStatus(TestServer http, String model, String status) {
        StatusWaits.until(http, "/models/" + model, status, Duration.ofSeconds(60));
    }

    @Test
    void modelFailuresAreStoredAsFailedDecisionsAndTheErrorNamesThem() {
        try (var server = ArborServer.start(TEST_MODELS)) {
            TestServer http = server.http();
            http.post(
                    "/models/hash-decider/load",
                    "{\"options\": {\"reject_marker\": \"REJECT\", " + "\"crash_marker\": \"CRASH\"}}");
            awaitStatus(http, "hash-decider", "loaded");

            JsonNode rejected = http.post(D, decision("hash-decider", "please REJECT this"))
                    .assertError(400, "model_rejected_input", null);
            String id = rejected.path("decision_id").asText();
            assertThat(id).startsWith("dec_");
            JsonNode stored = http.get(D + "/" + id).json();
            assertThat(stored.path("status").asText()).isEqualTo("failed");
            assertThat(stored.at("/error/code").asText()).isEqualTo("model_rejected_input");
            assertThat(stored.path("answers").isNull()).isTrue();
            assertThat(stored.at("/input/state").asText()).isEqualTo("please REJECT this");

            JsonNode unstored = http.post(
                            D,
                            decision("hash-decider", "REJECT").replace("{\"model\"", "{\"store\": \"none\", \"model\""))
                    .assertError(400, "model_rejected_input", null);
            assertThat(unstored.path("decision_id").isNull()).isTrue();

            JsonNode crashed =
                    http.post(D, decision("hash-decider", "CRASH now")).assertError(503, "model_crashed", "model");
            assertStoredAsModelError(http, crashed, "model_crashed");
            HttpReply after = http.post(D, decision("hash-decider", "fine again"));
            assertThat(after.status())
                    .as("the next decision starts the model again")
                    .isEqualTo(200);

            http.post("/models/hash-small/load", "{\"options\": {\"fail_load\": \"true\"}}");
            awaitStatus(http, "hash-small", "failed");
            JsonNode loadFailed =
                    http.post(D, decision("hash-small", "x")).assertError(503, "model_load_failed", "model");
            assertThat(loadFailed.path("message").asText()).contains("damaged");
            assertThat(loadFailed.path("decision_id").asText()).startsWith("dec_");
        }
    }

    /**
     * A keyed decision the model refuses is stored failed before its error is answered: its key keeps that error, so
     * a retry replays it (the same decision named) instead of deciding again and storing a second failed decision.
     */
    @Test
    void aKeyedDecisionThatFailedAfterItWasStoredReplaysItsErrorAndIsStoredOnce() {
        try (var server = ArborServer.start(TEST_MODELS)) {
            TestServer http = server.http();
            http.post("/models/hash-decider/load", "{\"options\": {\"reject_marker\": \"REJECT\"}}");
            awaitStatus(http, "hash-decider", "loaded");
            String body = decision("hash-decider", "please REJECT this");
            HttpReply first = http.post(D, body, "Idempotency-Key", "refused-1");
            first.assertError(400, "model_rejected_input", null);

            HttpReply retry = http.post(D, body, "Idempotency-Key", "refused-1");

            assertThat(retry.status()).isEqualTo(400);
            assertThat(retry.body())
                    .as("the same error, naming the same decision and the request that made it")
                    .isEqualTo(first.body());
            assertThat(retry.header("idempotent-replayed")).isEqualTo("true");
            assertThat(http.get(D + "?limit=100").json().path("data"))
                    .as("one failed decision stored")
                    .hasSize(1);
        }
    }

    @Test
    void aSlowModelTimesOutAndAnEjectedOneFailsTheDecisionWaitingForIt() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_MODEL_TIMEOUT_SECONDS", "1"))) {
            TestServer http = server.http();
            http.post("/models/hash-decider/load", "{\"options\": {\"score_delay_ms\": \"3000\"}}");
            awaitStatus(http, "hash-decider", "loaded");
            JsonNode timedOut =
                    http.post(D, decision("hash-decider", "slow")).assertError(504, "model_timeout", "model");
            assertStoredAsModelError(http, timedOut, "model_timeout");

            String waiting = waitingForASlowLoad(http, "waits");
            http.action("/models/hash-small/eject");
            JsonNode ejected = http.get(D + "/" + waiting + "?wait=20").json();
            assertThat(ejected.path("status").asText()).isEqualTo("failed");
            assertThat(ejected.at("/error/code").asText()).isEqualTo("model_ejected");
        }
    }

    @Test
    void aModelThatLoadsTooLongEndsTheDecisionWaitingForIt() {
        try (var server =
                ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_MODEL_LOAD_TIMEOUT_SECONDS", "1"))) {
            TestServer http = server.http();
            http.post("/models/hash-small/load", "{\"options\": {\"load_delay_ms\": \"60000\"}}");
            JsonNode timedOut =
                    http.post(D, decision("hash-small", "waits")).assertError(504, "model_load_timeout", "model");
            assertStoredAsModelError(http, timedOut, "model_load_timeout");
        }
    }

    @Test
    void withAutoLoadOffNothingIsLoadedForADecision() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_AUTO_LOAD", "0"))) {
            TestServer http = server.http();
            String anyModel = "{\"state\": \"x\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}";
            JsonNode none = http.post(D, anyModel).assertError(409, "model_not_loaded", "model");
            assertThat(http.get(D + "/" + none.path("decision_id").asText())
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("failed");
            http.post(D, decision("hash-decider", "x")).assertError(409, "model_not_loaded", "model");
            JsonNode preview = http.post(D + "/preview", anyModel).json();
            assertThat(preview.path("model").isNull()).isTrue();
            assertThat(preview.at("/warnings/0/code").asText()).isEqualTo("no_model_loaded");

            http.action("/models/hash-decider/load");
            awaitStatus(http, "hash-decider", "loaded");
            JsonNode decided = http.post(D, anyModel).json();
            assertThat(decided.path("model").asText())
                    .as("the loaded model answers")
                    .isEqualTo("hash-decider");
        }
    }

    @Test
    void backgroundDecisionsCanBeCancelledUntilTheyReachTheModelAndSurviveARestartAsFailed() {
        Path data;
        String interrupted;
        try (var server = ArborServer.start(TEST_MODELS)) {
            data = server.dataDir();
            TestServer http = server.http();
            String waiting = waitingForASlowLoad(http, "slow");
            JsonNode cancelled = http.action(D + "/" + waiting + "/cancel").json();
            assertThat(cancelled.path("status").asText()).isEqualTo("cancelled");
            assertThat(http.get(D + "/" + waiting + "?wait=1")
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("cancelled");
            http.action(D + "/" + waiting + "/cancel").assertError(409, "decision_finished", null);
            http.get(D + "/" + waiting + "?format=decide").assertError(409, "decision_finished", "format");
            http.action(D + "/dec_nope/cancel").assertError(404, "decision_not_found", "decision_id");

            interrupted =
                    http.post(D, inTheBackground("slow")).json().path("id").asText();
        }
        try (var restarted = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString()))) {
            JsonNode recovered = restarted.http().get(D + "/" + interrupted).json();
            assertThat(recovered.path("status").asText()).isEqualTo("failed");
            assertThat(recovered.at("/error/code").asText()).isEqualTo("internal_error");
            assertThat(recovered.at("/error/message").asText()).contains("server stopped");
        }
    }

    @Test
    void aHistoryWriteFailureServesTheAnswerOrFailsAsAsked() throws SQLException {
        try (var server = ArborServer.start(TEST_MODELS)) {
            TestServer http = server.http();
            String ok = http.post(D, decision("hash-decider", "before"))
                    .json()
                    .path("id")
                    .asText();
            try (Connection db = DriverManager.getConnection(
                    "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"))) {
                // the answers are written after the decision row: its failure must take the row with it
                db.createStatement()
                        .execute("CREATE TRIGGER refuse_answers BEFORE INSERT ON studio_decision_answers "
                                + "BEGIN SELECT RAISE(ABORT, 'disk is full'); END");
            }
            HttpReply served = http.post(D, decision("hash-decider", "during"));
            assertThat(served.status()).isEqualTo(200);
            assertThat(served.header("x-studio-stored")).isEqualTo("failed");
            assertThat(served.header("x-studio-decision-id")).isNull();
            JsonNode body = served.json();
            assertThat(body.path("store").asText()).isEqualTo("none");
            assertThat(body.path("warnings").findValuesAsText("code")).contains("history_write_failed");
            assertThat(body.path("answers").size()).isEqualTo(2);
            http.get(D + "/" + body.path("id").asText()).assertError(404, "decision_not_found", "decision_id");

            JsonNode failed = http.post(
                            D,
                            decision("hash-decider", "strict")
                                    .replace("{\"model\"", "{\"on_store_error\": \"fail\", \"model\""))
                    .assertError(503, "store_failed", null);
            assertThat(failed.path("type").asText()).isEqualTo("api_error");
            assertThat(http.get(D + "/" + ok).status()).isEqualTo(200);
            try (Connection db = DriverManager.getConnection(
                    "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"))) {
                var rows = db.createStatement().executeQuery("SELECT count(*) FROM studio_decisions");
                rows.next();
                assertThat(rows.getInt(1)).as("nothing half-written").isEqualTo(1);
            }
        }
    }

    /**
     * A background decision on hash-small, which is made to take a minute to load: its id, once it is in progress,
     * waiting for the model.
     */
    private static String waitingForASlowLoad(TestServer http, String state) {
        http.post("/models/hash-small/load", "{\"options\": {\"load_delay_ms\": \"60000\"}}");
        String waiting = http.post(D, inTheBackground(state)).json().path("id").asText();
        StatusWaits.until(http, D + "/" + waiting, "in_progress", Duration.ofSeconds(10));
        return waiting;
    }

    /** A background decision on hash-small. */
    private static String inTheBackground(String state) {
        return decision("hash-small", state).replace("{\"model\"", "{\"background\": true, \"model\"");
    }

    /** The error is a model error, and the decision it names is stored failed with {@code code}. */
    private static void assertStoredAsModelError(TestServer http, JsonNode error, String code) {
        assertThat(error.path("type").asText()).isEqualTo("model_error");
        assertThat(http.get(D + "/" + error.path("decision_id").asText())
                        .json()
                        .at("/error/code")
                        .asText())
                .isEqualTo(code);
    }
}
