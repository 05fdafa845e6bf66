package dev.arbor.studio.planning;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.questions.Question;
import java.util.List;
import org.junit.jupiter.api.Test;

class SettingsLadderTest {
    private static final String TEMPLATE = """
            {"act_threshold": 0.9,
             "temperature": 1.1,
             "questions": {"churn_risk": {"act_threshold": 0.7}},
             "models": {"laya": {"temperature": 1.3, "questions": {"urgency": {"temperature": 1.8}}}}}""";

    private static final List<Question> QUESTIONS = List.of(
            Question.of(
                    "urgency",
                    Json.read("{\"type\": \"score\", \"criteria\": [\"a\", \"b\"]}"),
                    Question.Origin.TEMPLATE,
                    false),
            Question.of(
                    "churn_risk", Json.read("{\"type\": \"noul\", \"criteria\": {}}"), Question.Origin.TEMPLATE, false),
            Question.of(
                    "tags",
                    Json.read("{\"type\": \"multi\", \"criteria\": {\"a\": null}, " + "\"threshold\": 0.4}"),
                    Question.Origin.TEMPLATE,
                    false));

    @Test
    void eachValueComesFromTheFirstLayerThatHasOne() {
        var effective = SettingsLadder.resolve((ObjectNode) Json.read(TEMPLATE), Json.object(), "laya", QUESTIONS, 0.9);
        assertThat(effective.json().toString()).isEqualTo("""
                {"act_threshold":0.9,"temperature":1.3,\
                "questions":{"urgency":{"temperature":1.8},"churn_risk":{"act_threshold":0.7}},\
                "sources":{"act_threshold":"template","temperature":"template.models.laya",\
                "questions.urgency.temperature":"template.models.laya.questions",\
                "questions.churn_risk.act_threshold":"template.questions"}}""");
        assertThat(effective.of("tags").multiThreshold()).isEqualTo(0.4);
        assertThat(effective.of("churn_risk").temperature()).isEqualTo(1.3);
    }

    @Test
    void aDecisionLevelRequestValueBeatsTheTemplatesPerQuestionValue() {
        var effective = SettingsLadder.resolve(
                (ObjectNode) Json.read(TEMPLATE),
                (ObjectNode) Json.read("{\"act_threshold\": 0.8}"),
                "other",
                QUESTIONS,
                0.9);
        assertThat(effective.of("churn_risk").actThreshold()).isEqualTo(0.8);
        assertThat(effective.temperature()).isEqualTo(1.1);
        assertThat(effective.json().at("/sources/temperature").asText()).isEqualTo("template");
        assertThat(effective.json().at("/sources/act_threshold").asText()).isEqualTo("request");
    }
}
