package dev.arbor.studio.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TemplateDefinitionCodecTest {

    @ParameterizedTest
    @ValueSource(strings = {"""
                {"questions": {"urgent": {"type": "noul"}}}""", """
                {"modalities": ["text", "image"],
                 "variables": {"msg": {"type": "string", "max_length": 500, "description": "The message"},
                               "tier": {"type": "string", "enum": ["free", "paid"], "default": "free"},
                               "photo": {"type": "image", "required": false},
                               "teams": {"type": "options"},
                               "secret": {"type": "string", "sensitive": true, "required": false}},
                 "state": {"message": "{{msg}}", "tier": "{{tier}}"},
                 "questions": {"team": {"type": "choice", "criteria": "{{teams}}"},
                               "tags": {"type": "multi", "criteria": ["a", "b"], "threshold": 0.7},
                               "size": {"type": "number", "criteria": [1, 2, 3], "unit": "h"},
                               "grade": {"type": "score", "criteria": ["low", "high"]}},
                 "model": "hash-decider",
                 "settings": {"act_threshold": 0.8,
                              "models": {"hash-decider": {"questions": {"tags": {"temperature": 1.5}}}}},
                 "extensions": {"questions": false, "max_questions": 3, "options": ["tags"], "skip": true}}"""})
    void writingWhatWasReadGivesTheStoredTextBack(String sent) {
        String stored = Json.writeString(TestDefinitions.normalJson(sent));

        String written =
                Json.writeString(TemplateDefinitionCodec.write(TemplateDefinitionCodec.read(Json.read(stored))));

        assertThat(written).isEqualTo(stored);
    }

    @Test
    void aStoredDefinitionWithoutExtensionsReadsTheDefaults() {
        var definition = TemplateDefinitionCodec.read(Json.read("{\"questions\": {\"q\": {\"type\": \"noul\"}}}"));

        assertThat(definition.extensions()).isEqualTo(ExtensionPolicy.defaults());
        assertThat(definition.model()).isEmpty();
        assertThat(definition.questions().get("q").type()).isEqualTo(QuestionType.NOUL);
    }

    @Test
    void theHeadsTheSettingsNameAreReadPerModelAndQuestion() {
        var definition = TestDefinitions.normal("""
                {"questions": {"q": {"type": "noul"}},
                 "settings": {"models": {"hash-decider": {"questions": {"q": {"head": "head_1"}}}}}}""");

        assertThat(definition.head("hash-decider", "q")).contains("head_1");
        assertThat(definition.head("other", "q")).isEmpty();
        assertThat(definition.heads()).containsExactly("head_1");
    }
}
