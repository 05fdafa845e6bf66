package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

        assertThat(listed("metadata.batch=labels&labelled=true")).isEqualTo(1);
        assertThat(http.get(D + "?metadata.batch=labels")
                        .json()
                        .at("/data/0/labelled")
                        .asBoolean())
                .isTrue();
        JsonNode shown = http.get(D + "/" + id).json().path("feedback");
        assertThat(shown.at("/team/expected").asText()).isEqualTo("billing");
        assertThat(shown.at("/team/feedback_id").asText()).isEqualTo(teamId);
        assertThat(listed("metadata.batch=labels&labelled=false")).isZero();
        boolean anyWrong = false;
        for (JsonNode f : http.get(D + "/" + id + "/feedback").json().path("data")) {
            anyWrong |= !f.path("correct").asBoolean(true);
        }
        assertThat(listed("metadata.batch=labels&correct=false")).isEqualTo(anyWrong ? 1 : 0);

        String rateOnly = http.post(D, adHoc("rate me")).json().path("id").asText();
        JsonNode rated = http.post(D + "/" + rateOnly + "/feedback", "{\"expected\": {}, \"rating\": -1}")
                .json();
        assertThat(rated.at("/data/0/question").asText()).isEqualTo("*");
        assertThat(rated.at("/data/0/correct").isNull()).isTrue();

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

    /** Each row: a feedback body on an ad hoc decision asking every question type, and the 400 it gets. */
    @ParameterizedTest(name = "{1} {2}: {0}")
    @CsvSource(delimiter = '|', textBlock = """
            {"rating": 1}                                                 | missing_field    | expected
            {"expected": {}}                                              | missing_field    | rating
            # an integer past 32 bits is no rating, though it would wrap to 1 as an int
            {"expected": {}, "rating": 4294967297}                        | invalid_field    | rating
            {"expected": {}, "rating": null}                              | missing_field    | expected
            {"expected": {"level": "very"}, "rating": null}               | invalid_expected | expected.level
            {"expected": {"urgent": "maybe"}, "rating": null}             | invalid_expected | expected.urgent
            {"expected": {"nope": 1}, "rating": null}                     | invalid_expected | expected.nope
            {"expected": {"team": "legal"}, "rating": null}               | invalid_expected | expected.team
            {"expected": {"tags": "legal"}, "rating": null}               | invalid_expected | expected.tags
            {"expected": {"days": "soon"}, "rating": null}                | invalid_expected | expected.days
            {"expected": [], "rating": 5}                                 | invalid_field    | rating
            """)
    void feedbackThatIsNoLabelIsRefusedAtItsField(String body, String code, String param) {
        String id = http.post(D, adHoc("refuse me")).json().path("id").asText();
        http.post(D + "/" + id + "/feedback", body).assertError(400, code, param);
    }
}
