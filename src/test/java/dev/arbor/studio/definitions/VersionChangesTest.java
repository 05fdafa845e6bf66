package dev.arbor.studio.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;

class VersionChangesTest {

    private static String comparability(String older, String newer) {
        return VersionChanges.comparability(Json.read(older), Json.read(newer))
                .path("comparability")
                .asText();
    }

    @Test
    void questionsCompareByWhatTheirAnswersMean() {
        String noul = "{\"type\":\"noul\",\"instructions\":\"Urgent?\",\"criteria\":{}}";
        assertThat(comparability(noul, noul)).isEqualTo("identical");
        assertThat(comparability(noul, noul.replace("Urgent?", "Is it urgent?")))
                .isEqualTo("text_changed");
        assertThat(comparability(
                        "{\"type\":\"choice\",\"criteria\":{\"a\":null,\"b\":null}}",
                        "{\"type\":\"choice\",\"criteria\":{\"a\":null,\"b\":null,\"c\":null}}"))
                .isEqualTo("options_changed");
        assertThat(comparability(
                        "{\"type\":\"choice\",\"criteria\":{\"a\":null,\"b\":null}}",
                        "{\"type\":\"choice\",\"criteria\":{\"b\":null,\"a\":null}}"))
                .isEqualTo("text_changed");
        assertThat(comparability(
                        "{\"type\":\"score\",\"criteria\":[\"lo\",\"hi\"]}",
                        "{\"type\":\"score\",\"criteria\":[\"lo\",\"mid\",\"hi\"]}"))
                .isEqualTo("incomparable");
        assertThat(comparability(noul, "{\"type\":\"choice\",\"criteria\":{\"a\":null}}"))
                .isEqualTo("incomparable");
        assertThat(comparability(
                        "{\"type\":\"number\",\"criteria\":{\"1\":null,\"2\":null}}",
                        "{\"type\":\"number\",\"criteria\":{\"1\":null,\"2\":null,\"3\":null}}"))
                .isEqualTo("options_changed");
        assertThat(comparability(
                        "{\"type\":\"choice\",\"criteria\":{\"a\":null}}",
                        "{\"type\":\"choice\",\"criteria\":\"{{teams}}\"}"))
                .isEqualTo("incomparable");
    }

    private static TemplateDefinition definition(String json) {
        return TestDefinitions.normal(json);
    }

    private static final String BASE = """
            {"variables": {"msg": {"type": "string"}}, "state": "{{msg}}",
             "questions": {"q": {"type": "choice", "criteria": ["a", "b"]}}%s}""";

    @Test
    void aDefaultMakesARequiredVariableOptionalWithoutBreakingCallers() {
        ObjectNode changes = VersionChanges.between(
                1,
                definition(BASE.formatted("")),
                definition(BASE.formatted("")
                        .replace("{\"type\": \"string\"}", "{\"type\": \"string\", \"default\": \"hi\"}")));
        assertThat(changes.path("breaking_for_callers").asBoolean()).isFalse();
        assertThat(changes.path("class").asText()).isEqualTo("wording");
    }

    @Test
    void anEnumNarrowsAVariableAndBreaksCallers() {
        ObjectNode changes = VersionChanges.between(
                1,
                definition(BASE.formatted("")),
                definition(BASE.formatted("")
                        .replace("{\"type\": \"string\"}", "{\"type\": \"string\", \"enum\": [\"hi\", \"bye\"]}")));
        assertThat(changes.path("class").asText()).isEqualTo("breaking");
        assertThat(changes.path("breaking_for_callers").asBoolean()).isTrue();
        assertThat(changes.path("summary").toString()).contains("variable msg: now limited to hi, bye");
    }

    @Test
    void classesFollowTheMostSevereChange() {
        TemplateDefinition base = definition(BASE.formatted(""));
        assertThat(VersionChanges.between(
                                1,
                                base,
                                definition(BASE.formatted("").replace("[\"a\", \"b\"]", "[\"a\", \"b\", \"c\"]")))
                        .path("class")
                        .asText())
                .isEqualTo("extended");
        assertThat(VersionChanges.between(1, base, definition(BASE.formatted("").replace("[\"a\", \"b\"]", "[\"a\"]")))
                        .path("class")
                        .asText())
                .isEqualTo("breaking");
        assertThat(VersionChanges.between(
                                1, base, definition(BASE.formatted(", \"settings\": {\"act_threshold\": 0.8}")))
                        .path("class")
                        .asText())
                .isEqualTo("settings_only");
        ObjectNode narrowed =
                VersionChanges.between(1, base, definition(BASE.formatted(", \"extensions\": {\"questions\": false}")));
        assertThat(narrowed.path("class").asText()).isEqualTo("settings_only");
        assertThat(narrowed.path("breaking_for_callers").asBoolean()).isTrue();
        ObjectNode added = VersionChanges.between(
                1,
                base,
                definition(BASE.formatted("")
                        .replace("\"questions\": {", "\"questions\": {\"extra\": {\"type\": \"noul\"}, ")));
        assertThat(added.path("class").asText()).isEqualTo("extended");
        assertThat(added.at("/questions/extra/comparability").asText()).isEqualTo("added");
        assertThat(added.at("/questions/q/comparability").asText()).isEqualTo("identical");
    }
}
