package dev.arbor.studio.running;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.planning.SettingsLadder;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.AnswerRow;
import dev.arbor.studio.questions.Question;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AnswersTest {
    private static Question question(String key, String json) {
        return Question.of(key, Json.read(json), Question.Origin.ADHOC, false);
    }

    private static SettingsLadder.Effective settings(List<Question> questions, String request) {
        return SettingsLadder.resolve(Json.object(), (ObjectNode) Json.read(request), "m", questions, 0.9);
    }

    @Test
    void aMultiAnswerIsAsSureAsItsLeastSureOption() {
        var tags =
                question("tags", "{\"type\": \"multi\", \"criteria\": {\"a\": null, \"b\": null}, \"threshold\": 0.5}");
        var probabilities = Map.of("tags#0", List.of(0.05, 0.95), "tags#1", List.of(0.7, 0.3));
        var at70 = Answers.of(List.of(tags), probabilities, settings(List.of(tags), "{\"act_threshold\": 0.7}"));
        var answer = AnswerCodec.writeAll(at70.answers()).path("tags");
        assertThat(answer.path("selected").toString()).isEqualTo("[\"a\"]");
        assertThat(answer.path("certainty").asDouble()).isEqualTo(0.7);
        assertThat(answer.path("act").asBoolean()).isTrue();
        var at71 = Answers.of(List.of(tags), probabilities, settings(List.of(tags), "{\"act_threshold\": 0.71}"));
        assertThat(AnswerCodec.writeAll(at71.answers()).path("tags").path("act").asBoolean())
                .isFalse();
        assertThat(at71.needsReview()).containsExactly("tags");
        assertThat(at71.act()).isFalse();
    }

    @Test
    void temperatureSoftensWithoutChangingTheWinner() {
        var team = question("team", "{\"type\": \"choice\", \"criteria\": {\"a\": null, \"b\": null, \"c\": null}}");
        var probabilities = Map.of("team", List.of(0.7, 0.2, 0.1));
        var plain = Answers.of(List.of(team), probabilities, settings(List.of(team), "{}"));
        var warm = Answers.of(List.of(team), probabilities, settings(List.of(team), "{\"temperature\": 2}"));
        assertThat(AnswerCodec.writeAll(plain.answers())
                        .at("/team/probabilities/a")
                        .asDouble())
                .isEqualTo(0.7);
        assertThat(AnswerCodec.writeAll(warm.answers()).at("/team/choice").asText())
                .isEqualTo("a");
        assertThat(AnswerCodec.writeAll(warm.answers())
                        .at("/team/probabilities/a")
                        .asDouble())
                .isLessThan(0.7)
                .isGreaterThan(0.4);
        assertThat(warm.raw().get("team").get("a")).isEqualTo(0.7);
        assertThat(AnswerCodec.writeAll(plain.answers()).at("/team/confidence").asDouble())
                .isEqualTo(0.55);
    }

    @Test
    void scoresNumbersAndRanksHaveTheirOwnFields() {
        var level = question("level", "{\"type\": \"score\", \"criteria\": [\"low\", {\"text\": \"mid\"}, \"high\"]}");
        var days = question(
                "days",
                "{\"type\": \"number\", \"criteria\": {\"1\": null, \"2\": null, \"5\": null, "
                        + "\"10\": null}, \"unit\": \"days\"}");
        var order = question("order", "{\"type\": \"rank\", \"criteria\": {\"x\": null, \"y\": null, \"z\": null}}");
        var urgent = question("urgent", "{\"type\": \"noul\", \"criteria\": {}}");
        var all = List.of(level, days, order, urgent);
        var result = Answers.of(
                all,
                Map.of(
                        "level",
                        List.of(0.0, 0.0, 1.0),
                        "days",
                        List.of(0.05, 0.6, 0.3, 0.05),
                        "order",
                        List.of(0.2, 0.5, 0.3),
                        "urgent",
                        List.of(0.4, 0.6)),
                settings(all, "{}"));
        var answers = AnswerCodec.writeAll(result.answers());
        assertThat(answers.at("/level/score").asDouble()).isEqualTo(2.0);
        assertThat(answers.at("/level/decision").asText()).isEqualTo("2");
        assertThat(answers.at("/level/confidence").asDouble()).isEqualTo(1.0);
        assertThat(answers.at("/level/legend/1").toString()).isEqualTo("{\"text\":\"mid\"}");
        assertThat(answers.at("/days/most_likely").asInt()).isEqualTo(2);
        assertThat(answers.at("/days/estimate").asDouble()).isEqualTo(3.25);
        assertThat(answers.at("/days/range").toString()).isEqualTo("[2,5]");
        assertThat(answers.at("/days/unit").asText()).isEqualTo("days");
        assertThat(answers.at("/order/ranking").toString()).isEqualTo("[\"y\",\"z\",\"x\"]");
        assertThat(answers.at("/urgent/decision").asText()).isEqualTo("yes");
        assertThat(answers.at("/urgent/noul").asDouble()).isEqualTo(0.6);
        assertThat(result.minCertainty()).isEqualTo(0.5);
        assertThat(result.rows()).extracting(AnswerRow::answer).containsExactly("2", "2", "y", "yes");
    }
}
