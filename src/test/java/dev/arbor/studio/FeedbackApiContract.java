package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import org.junit.jupiter.api.Test;

/** Feedback on decisions over HTTP; run once on SQLite and once on PostgreSQL. */
abstract class FeedbackApiContract extends StudioApiContract {
    @Test
    void feedbackLabelsAnswersInTheirCanonicalFormAndSaysWhetherTheyWereRight() {
        JsonNode decision = http.post(
                        D,
                        adHoc("label me")
                                .replace("{\"model\"", "{\"metadata\": {\"batch\": " + "\"labels\"}, \"model\""))
                .json();
        String id = decision.path("id").asText();
        String urgent = decision.at("/answers/urgent/decision").asText();
        String level = decision.at("/answers/level/decision").asText();
        HttpReply posted = http.post(D + "/" + id + "/feedback", """
                {"expected": {"urgent": %s, "level": "high", "tags": ["legal", "refund", "legal"], "order": ["c", "a"],
                              "days": "5", "team": "%s"},
                 "rating": 1, "note": "checked by hand"}""".formatted(
                urgent.equals("yes"), decision.at("/answers/team/decision").asText()));
        assertThat(posted.status()).as(posted.body()).isEqualTo(200);
        var byQuestion = new java.util.HashMap<String, JsonNode>();
        posted.json()
                .path("data")
                .forEach(f -> byQuestion.put(f.path("question").asText(), f));
        assertThat(byQuestion.keySet()).containsExactlyInAnyOrder("urgent", "level", "tags", "order", "days", "team");
        assertThat(byQuestion.get("urgent").path("expected").asText()).isEqualTo(urgent);
        assertThat(byQuestion.get("urgent").path("correct").asBoolean()).isTrue();
        assertThat(byQuestion.get("level").path("expected").asText()).isEqualTo("2");
        assertThat(byQuestion.get("level").path("correct").asBoolean()).isEqualTo(level.equals("2"));
        assertThat(byQuestion.get("tags").path("expected").toString()).isEqualTo("[\"refund\",\"legal\"]");
        assertThat(byQuestion.get("order").path("expected").asText()).isEqualTo("c");
        assertThat(byQuestion.get("days").path("expected").asInt()).isEqualTo(5);
        assertThat(byQuestion.get("team").path("correct").asBoolean()).isTrue();
        assertThat(byQuestion.get("team").path("rating").asInt()).isEqualTo(1);
        assertThat(byQuestion.get("team").path("id").asText()).startsWith("fb_");

        String teamId = byQuestion.get("team").path("id").asText();
        JsonNode again = http.post(
                        D + "/" + id + "/feedback", "{\"expected\": {\"team\": \"billing\"}, " + "\"rating\": null}")
                .json();
        assertThat(again.path("data").size())
                .as("posting again updates, never duplicates")
                .isEqualTo(6);
        assertThat(http.get(D + "/" + id + "/feedback").json().path("data").toString())
                .contains(teamId);

        assertThat(http.get(D + "?metadata.batch=labels&labelled=true")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(1);
        assertThat(http.get(D + "?metadata.batch=labels")
                        .json()
                        .at("/data/0/labelled")
                        .asBoolean())
                .isTrue();
        JsonNode shown = http.get(D + "/" + id).json().path("feedback");
        assertThat(shown.at("/team/expected").asText()).isEqualTo("billing");
        assertThat(shown.at("/team/feedback_id").asText()).isEqualTo(teamId);
        assertThat(http.get(D + "?metadata.batch=labels&labelled=false")
                        .json()
                        .path("data")
                        .size())
                .isZero();
        boolean anyWrong = false;
        for (JsonNode f : http.get(D + "/" + id + "/feedback").json().path("data")) {
            anyWrong |= !f.path("correct").asBoolean(true);
        }
        assertThat(http.get(D + "?metadata.batch=labels&correct=false")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(anyWrong ? 1 : 0);

        String rateOnly = http.post(D, adHoc("rate me")).json().path("id").asText();
        JsonNode rated = http.post(D + "/" + rateOnly + "/feedback", "{\"expected\": {}, \"rating\": -1}")
                .json();
        assertThat(rated.at("/data/0/question").asText()).isEqualTo("*");
        assertThat(rated.at("/data/0/correct").isNull()).isTrue();

        http.post(D + "/" + id + "/feedback", "{\"rating\": 1}").assertError(400, "missing_field", "expected");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {}}").assertError(400, "missing_field", "rating");
        // an integer past 32 bits is no rating, though it would wrap to 1 as an int
        http.post(D + "/" + id + "/feedback", "{\"expected\": {}, \"rating\": 4294967297}")
                .assertError(400, "invalid_field", "rating");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {}, \"rating\": null}")
                .assertError(400, "missing_field", "expected");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"level\": \"very\"}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.level");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"urgent\": \"maybe\"}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.urgent");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"nope\": 1}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.nope");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"team\": \"legal\"}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.team");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"tags\": \"legal\"}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.tags");
        http.post(D + "/" + id + "/feedback", "{\"expected\": {\"days\": \"soon\"}, \"rating\": null}")
                .assertError(400, "invalid_expected", "expected.days");
        http.post(D + "/" + id + "/feedback", "{\"expected\": [], \"rating\": 5}")
                .assertError(400, "invalid_field", "rating");
        http.post(D + "/dec_nope/feedback", "{\"expected\": {}, \"rating\": 1}")
                .assertError(404, "decision_not_found", "decision_id");

        assertThat(http.delete("/v1/studio/feedback/" + teamId)
                        .json()
                        .path("deleted")
                        .asBoolean())
                .isTrue();
        http.delete("/v1/studio/feedback/" + teamId).assertError(404, "feedback_not_found", "feedback_id");
        assertThat(http.get(D + "/" + id + "/feedback").json().path("data").size())
                .isEqualTo(5);
        http.delete(D + "/" + id);
        http.get(D + "/" + id + "/feedback").assertError(404, "decision_not_found", "decision_id");
    }
}
