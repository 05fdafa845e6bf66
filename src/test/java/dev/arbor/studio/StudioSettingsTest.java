package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The studio's settings: the last layer under every decision, kept across restarts. */
class StudioSettingsTest {
    private static final String D = "/v1/studio/decisions";
    private static final String DECISION = "{\"model\": \"hash-decider\", \"state\": \"x\", \"questions\": "
            + "{\"ok\": {\"type\": \"noul\"}}, \"media\": [{\"data\": \"data:image/png;base64,iVBORw0KGgo=\"}]}";

    @Test
    void everyProblemOfAPatchIsReportedAtOnceAndNoneOfItIsApplied() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            JsonNode error = http.patch("/v1/studio/settings", """
                    {"storage": {}, "colour": 1, "decisions": [],
                     "history": {"store": "answers_only", "tone": 1, "retention_days": 1.5, "keep_labelled": "no"}}""").assertError(400, "invalid_field", "colour");
            var problems = StudioApiContract.problems(error.path("details"));
            assertThat(problems)
                    .containsExactlyInAnyOrder(
                            "read_only_field@storage",
                            "invalid_field@colour",
                            "invalid_field@decisions",
                            "invalid_field@history.tone",
                            "invalid_field@history.retention_days",
                            "invalid_field@history.keep_labelled");
            assertThat(http.get("/v1/studio/settings")
                            .json()
                            .at("/history/store")
                            .asText())
                    .isEqualTo("full");
        }
    }

    @Test
    void historyIsSweptByItsRetentionSparingPinnedAndLabelledDecisions() throws Exception {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            http.post(
                    "/v1/studio/templates",
                    "{\"id\": \"forever\", \"retention_days\": 0, \"model\": "
                            + "\"hash-decider\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}");
            http.post(
                    "/v1/studio/templates",
                    "{\"id\": \"brief\", \"retention_days\": 1, \"model\": "
                            + "\"hash-decider\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}");
            String plain = http.post(D, DECISION).json().path("id").asText();
            String pinned = http.post(D, DECISION).json().path("id").asText();
            http.patch(D + "/" + pinned, "{\"pinned\": true}");
            String labelled = http.post(D, DECISION).json().path("id").asText();
            http.post(D + "/" + labelled + "/feedback", "{\"expected\": {}, \"rating\": 1}");
            String fresh = http.post(D, DECISION).json().path("id").asText();
            String forever = http.post(D, "{\"template\": \"forever\", \"state\": \"x\"}")
                    .json()
                    .path("id")
                    .asText();
            String brief = http.post(D, "{\"template\": \"brief\", \"state\": \"x\"}")
                    .json()
                    .path("id")
                    .asText();
            try (Connection db = DriverManager.getConnection(
                    "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"))) {
                var age = db.prepareStatement("UPDATE studio_decisions SET created_at = created_at - ? WHERE id = ?");
                for (String id : java.util.List.of(plain, pinned, labelled, forever)) {
                    age.setLong(1, 40L * 86_400_000);
                    age.setString(2, id);
                    age.executeUpdate();
                }
                age.setLong(1, 2L * 86_400_000);
                age.setString(2, brief);
                age.executeUpdate();
            }
            JsonNode freshOne = http.get(D + "/" + fresh).json();
            assertThat(freshOne.path("expires_at").asLong())
                    .isEqualTo(freshOne.path("created_at").asLong() + 30L * 86_400);
            for (String never : java.util.List.of(pinned, labelled, forever)) {
                assertThat(http.get(D + "/" + never).json().path("expires_at").isNull())
                        .as(never)
                        .isTrue();
            }
            JsonNode settings = http.patch("/v1/studio/settings", "{\"history\": {\"retention_days\": 30}}")
                    .json();
            assertThat(settings.at("/storage/last_sweep_deleted").asInt()).isEqualTo(2);
            http.get(D + "/" + plain).assertError(404, "decision_not_found", "decision_id");
            http.get(D + "/" + brief).assertError(404, "decision_not_found", "decision_id");
            for (String kept : java.util.List.of(pinned, labelled, fresh, forever)) {
                assertThat(http.get(D + "/" + kept).status()).as(kept).isEqualTo(200);
            }
            http.patch("/v1/studio/settings", "{\"history\": {\"keep_labelled\": false}}");
            http.get(D + "/" + labelled).assertError(404, "decision_not_found", "decision_id");
            http.patch("/v1/studio/settings", "{\"history\": {\"retention_days\": 0}}");
            assertThat(http.get(D + "/" + pinned).status()).isEqualTo(200);
        }
    }

    @Test
    void historyIsHeldUnderItsSizeCapOldestFirstSparingPinnedAndLabelled() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            TestServer http = server.http();
            var ids = new java.util.ArrayList<String>();
            for (int i = 0; i < 8; i++) {
                ids.add(http.post(D, DECISION).json().path("id").asText());
            }
            http.patch(D + "/" + ids.get(0), "{\"pinned\": true}");
            http.post(D + "/" + ids.get(1) + "/feedback", "{\"expected\": {\"ok\": \"yes\"}, \"rating\": null}");
            JsonNode before = http.get("/v1/studio/settings").json();
            long bytes = before.at("/storage/bytes").asLong();
            assertThat(bytes).isGreaterThan(8 * 1000L);
            long perDecision = bytes / 8;
            // room for a little under five decisions: the three oldest that may go, go
            double capGb = (perDecision * 4.5) / (1024.0 * 1024 * 1024);
            JsonNode capped = http.patch("/v1/studio/settings", "{\"history\": {\"max_storage_gb\": " + capGb + "}}")
                    .json();
            assertThat(capped.at("/history/max_storage_gb").asDouble()).isEqualTo(capGb);
            assertThat(capped.at("/storage/last_sweep_deleted").asInt()).isEqualTo(4);
            assertThat(capped.at("/storage/bytes").asLong()).isLessThanOrEqualTo((long) (perDecision * 4.5) + 8);
            for (String gone : ids.subList(2, 6)) {
                http.get(D + "/" + gone).assertError(404, "decision_not_found", "decision_id");
            }
            for (String kept : java.util.List.of(ids.get(0), ids.get(1), ids.get(6), ids.get(7))) {
                assertThat(http.get(D + "/" + kept).status()).as(kept).isEqualTo(200);
            }
            http.patch("/v1/studio/settings", "{\"history\": {\"max_storage_gb\": 0}}");
            http.post(D, DECISION);
            assertThat(http.get("/v1/studio/settings")
                            .json()
                            .at("/storage/decisions")
                            .asInt())
                    .isEqualTo(5);
        }
    }

    @Test
    void settingsShapeEveryDecisionAndSurviveARestart() throws Exception {
        Path data;
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            data = server.dataDir();
            TestServer http = server.http();
            JsonNode defaults = http.get("/v1/studio/settings").json();
            assertThat(defaults.path("object").asText()).isEqualTo("settings");
            assertThat(defaults.path("history").toString())
                    .isEqualTo("{\"store\":\"full\",\"store_media\":true,"
                            + "\"on_store_error\":\"serve\",\"retention_days\":30,\"keep_labelled\":true,"
                            + "\"max_storage_gb\":20.0}");
            assertThat(defaults.at("/decisions/default_act_threshold").asDouble())
                    .isEqualTo(0.9);
            assertThat(defaults.at("/storage/decisions").asInt()).isZero();

            JsonNode kept = http.post(D, DECISION).json();
            assertThat(http.get(D + "/" + kept.path("id").asText())
                            .json()
                            .at("/input/media/0/available")
                            .asBoolean())
                    .isTrue();
            http.patch(
                    "/v1/studio/settings",
                    "{\"history\": {\"store_media\": false}, " + "\"decisions\": {\"default_act_threshold\": 0.5}}");
            JsonNode withoutMedia = http.post(D, DECISION).json();
            assertThat(withoutMedia.at("/settings/act_threshold").asDouble()).isEqualTo(0.5);
            assertThat(withoutMedia.at("/settings/sources/act_threshold").asText())
                    .isEqualTo("studio");
            assertThat(http.get(D + "/" + withoutMedia.path("id").asText())
                            .json()
                            .at("/input/media/0/available")
                            .asBoolean())
                    .isFalse();

            JsonNode patched = http.patch("/v1/studio/settings", "{\"history\": {\"store\": \"answers_only\"}}")
                    .json();
            assertThat(patched.at("/history/store").asText()).isEqualTo("answers_only");
            assertThat(patched.at("/storage/decisions").asInt()).isEqualTo(2);
            JsonNode lowered = http.post(D, DECISION.replace("{\"model\"", "{\"store\": \"full\", \"model\""))
                    .json();
            assertThat(lowered.path("store").asText()).isEqualTo("answers_only");
            assertThat(lowered.at("/warnings/0/code").asText()).isEqualTo("store_downgraded");
            assertThat(lowered.at("/warnings/0/message").asText()).startsWith("The studio keeps at most");

            http.patch("/v1/studio/settings", "{\"storage\": {}}").assertError(400, "read_only_field", "storage");
            http.patch("/v1/studio/settings", "{\"history\": {\"retention_days\": -1}}")
                    .assertError(400, "invalid_field", "history.retention_days");
            http.patch("/v1/studio/settings", "{\"history\": {\"max_storage_gb\": -5}}")
                    .assertError(400, "invalid_field", "history.max_storage_gb");
            http.patch("/v1/studio/settings", "{\"history\": {\"max_storage_gb\": \"5GB\"}}")
                    .assertError(400, "invalid_field", "history.max_storage_gb");
            http.patch("/v1/studio/settings", "{\"history\": {\"store\": \"forever\"}}")
                    .assertError(400, "invalid_field", "history.store");
            http.patch("/v1/studio/settings", "{\"decisions\": {\"default_act_threshold\": 1.5}}")
                    .assertError(400, "invalid_field", "decisions.default_act_threshold");
            http.patch("/v1/studio/settings", "{\"colour\": 1}").assertError(400, "invalid_field", "colour");
            http.patch("/v1/studio/settings", "{\"history\": {\"on_store_error\": \"fail\", \"store\": \"full\"}}");
        }
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString()))) {
            TestServer http = server.http();
            JsonNode settings = http.get("/v1/studio/settings").json();
            assertThat(settings.at("/history/on_store_error").asText()).isEqualTo("fail");
            assertThat(settings.at("/decisions/default_act_threshold").asDouble())
                    .isEqualTo(0.5);
            try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("arbor.db"))) {
                db.createStatement()
                        .execute("CREATE TRIGGER refuse BEFORE INSERT ON studio_decisions "
                                + "BEGIN SELECT RAISE(ABORT, 'disk is full'); END");
            }
            http.post(D, DECISION).assertError(503, "store_failed", null);
            assertThat(http.post(D, DECISION.replace("{\"model\"", "{\"on_store_error\": \"serve\", \"model\""))
                            .header("x-studio-stored"))
                    .as("the request's own choice wins")
                    .isEqualTo("failed");
        }
    }
}
