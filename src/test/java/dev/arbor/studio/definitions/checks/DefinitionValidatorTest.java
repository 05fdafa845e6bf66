package dev.arbor.studio.definitions.checks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.errors.Problems;
import dev.arbor.studio.definitions.TestDefinitions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Save-time checks of contract 7.3, each with its param, and the normal form. */
class DefinitionValidatorTest {

    private record Outcome(List<Problem> problems, DefinitionValidator.Result result) {
        List<String> codes() {
            return problems.stream().map(p -> p.code().code()).toList();
        }

        List<String> params() {
            return problems.stream().map(Problem::param).toList();
        }

        ObjectNode definition() {
            assertThat(problems).as("problems").isEmpty();
            return result.definition();
        }
    }

    private static Outcome check(String json) {
        var problems = new Problems();
        var result = TestDefinitions.validate(json, problems);
        return new Outcome(problems.list(), result);
    }

    @Test
    void normalFormWritesEveryDefaultOut() {
        ObjectNode definition = check("""
                {"questions": {"urgent": {"type": "noul"}, "team": {"type": "choice", "criteria": ["billing", "tech"]},
                 "tags": {"type": "multi", "criteria": {"a": "first", "b": null}},
                 "size": {"type": "number", "criteria": [10, 1, 2.50, 1], "unit": "h"}}}""").definition();
        assertThat(definition.fieldNames())
                .toIterable()
                .containsExactly("modalities", "variables", "state", "questions", "model", "settings", "extensions");
        assertThat(definition.path("modalities").toString()).isEqualTo("[\"text\"]");
        assertThat(definition.at("/questions/urgent/instructions").asText()).isEqualTo("Is this true?");
        assertThat(definition.at("/questions/team/criteria").toString()).isEqualTo("{\"billing\":null,\"tech\":null}");
        assertThat(definition.at("/questions/tags/threshold").asDouble()).isEqualTo(0.5);
        assertThat(definition.at("/questions/size/criteria").toString())
                .isEqualTo("{\"1\":null,\"2.5\":null,\"10\":null}");
        assertThat(definition.at("/extensions").toString())
                .isEqualTo("{\"questions\":true,\"max_questions\":16,\"options\":[],\"skip\":[]}");
        assertThat(definition.path("state").isNull()).isTrue();
    }

    @Test
    void questionsAreRequired() {
        assertThat(check("{}").codes()).containsExactly("missing_field");
        assertThat(check("{}").params()).containsExactly("questions");
        assertThat(check("{\"questions\": {}}").params()).containsExactly("questions");
    }

    @Test
    void wrongShapesAreInvalidFieldsWithPreciseParams() {
        Outcome outcome = check("""
                {"questions": {"urgency": {"type": "score", "criteria": "high"},
                               "kind": {"type": "pick"},
                               "bad key": {"type": "noul"},
                               "yes": {"type": "noul", "criteria": {"maybe": "x"}},
                               "rank": {"type": "rank", "criteria": ["only"]},
                               "num": {"type": "number", "criteria": [1, 1]}},
                 "variables": {"odd key": {"type": "string"}, "n": {"type": "integer", "colour": 1}},
                 "modalities": ["text", "smell"]}""");
        assertThat(outcome.codes()).containsOnly("invalid_field");
        assertThat(outcome.params())
                .contains(
                        "questions.urgency.criteria",
                        "questions.kind.type",
                        "questions[\"bad key\"]",
                        "questions.yes.criteria.maybe",
                        "questions.rank.criteria",
                        "questions.num.criteria",
                        "variables[\"odd key\"]",
                        "variables.n.colour",
                        "modalities[1]");
    }

    @Test
    void undeclaredVariablesSuggestTheClosestName() {
        Outcome outcome = check("""
                {"variables": {"message": {"type": "string"}},
                 "state": "Customer wrote: {{mesage}}",
                 "questions": {"q": {"type": "noul", "instructions": "About {{topic}}?"}}}""");
        assertThat(outcome.codes()).containsExactly("undeclared_variable", "undeclared_variable");
        assertThat(outcome.params()).containsExactly("state", "questions.q.instructions");
        assertThat(outcome.problems().getFirst().message()).contains("Did you mean `message`?");
    }

    @Test
    void placeholdersInOptionNamesAreNotAllowed() {
        Outcome outcome = check("""
                {"variables": {"tier": {"type": "string", "enum": ["a", "b"]}},
                 "state": "{{tier}}",
                 "questions": {"q": {"type": "choice", "criteria": ["{{tier}}", "other"]},
                               "n": {"type": "number", "criteria": {"{{tier}}": "x", "2": "y"}},
                               "s": {"type": "score", "criteria": "{{tier}}"}}}""");
        assertThat(outcome.codes())
                .containsExactly("placeholder_not_allowed", "placeholder_not_allowed", "placeholder_not_allowed");
        assertThat(outcome.params())
                .contains("questions.q.criteria[0]", "questions.n.criteria[\"{{tier}}\"]", "questions.s.criteria");
    }

    @Test
    void mediaVariablesCannotStandInText() {
        Outcome outcome = check("""
                {"variables": {"photo": {"type": "image"}},
                 "state": "Look: {{photo}}",
                 "questions": {"q": {"type": "noul"}}}""");
        assertThat(outcome.codes()).containsExactly("media_variable_in_text");
        assertThat(outcome.params()).containsExactly("state");
    }

    @Test
    void mediaTypesMustBeDeclaredWhenModalitiesAreGiven() {
        Outcome outcome = check("""
                {"variables": {"photo": {"type": "image"}, "note": {"type": "string"}},
                 "state": "{{note}}", "modalities": ["text"],
                 "questions": {"q": {"type": "noul"}}}""");
        assertThat(outcome.codes()).containsExactly("modality_not_declared");
        assertThat(outcome.params()).containsExactly("variables.photo");
        ObjectNode implied = check("""
                {"variables": {"photo": {"type": "image"}, "note": {"type": "string"}}, "state": "{{note}}",
                 "questions": {"q": {"type": "noul"}}}""").definition();
        assertThat(implied.path("modalities").toString()).isEqualTo("[\"text\",\"image\"]");
    }

    @Test
    void freeTextInQuestionsMustBeTrusted() {
        Outcome outcome = check("""
                {"variables": {"product": {"type": "string"}, "plan": {"type": "string", "enum": ["free", "pro"]},
                               "seats": {"type": "integer"}, "blurb": {"type": "string", "trusted": true}},
                 "state": "{{product}}",
                 "questions": {"q": {"type": "noul", "instructions": "Is {{product}} on {{plan}} with {{seats}} ({{blurb}})?"}}}""");
        assertThat(outcome.codes()).containsExactly("untrusted_variable_in_question");
        assertThat(outcome.params()).containsExactly("questions.q.instructions");
    }

    @Test
    void contradictionsAreInvalidDefinitions() {
        Outcome stateWithoutVariables =
                check("{\"state\": \"Fixed text\", \"questions\": {\"q\": {\"type\": \"noul\"}}}");
        assertThat(stateWithoutVariables.codes()).containsExactly("invalid_definition");
        assertThat(stateWithoutVariables.params()).containsExactly("state");

        Outcome sensitiveInQuestion = check("""
                {"variables": {"email": {"type": "string", "enum": ["a@b.c"], "sensitive": true}}, "state": "{{email}}",
                 "questions": {"q": {"type": "noul", "instructions": "Is {{email}} known?"}}}""");
        assertThat(sensitiveInQuestion.codes()).containsExactly("invalid_definition");

        Outcome optionsAsText = check("""
                {"variables": {"teams": {"type": "options"}}, "state": "{{teams}}",
                 "questions": {"q": {"type": "choice", "criteria": "{{teams}}"}}}""");
        assertThat(optionsAsText.codes()).containsExactly("invalid_definition");
        assertThat(optionsAsText.params()).containsExactly("state");
    }

    @Test
    void optionsVariablesBindWholeCriteriaOfChoiceQuestionsOnly() {
        ObjectNode ok = check("""
                {"variables": {"teams": {"type": "options"}, "msg": {"type": "string"}}, "state": "{{msg}}",
                 "questions": {"q": {"type": "choice", "criteria": "{{ teams }}"}}}""").definition();
        assertThat(ok.at("/questions/q/criteria").asText()).isEqualTo("{{teams}}");

        Outcome wrongType = check("""
                {"variables": {"msg": {"type": "string"}}, "state": "{{msg}}",
                 "questions": {"q": {"type": "choice", "criteria": "{{msg}}"}}}""");
        assertThat(wrongType.codes()).containsExactly("invalid_definition");
        assertThat(wrongType.params()).containsExactly("questions.q.criteria");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "^(\\\\w+)+\\\\1$|invalid escape sequence",
                "secret(?!ary)|invalid or unsupported Perl syntax",
                "(?<=x)y|invalid named capture"
            })
    void aVariablePatternRe2CannotRunIsRefused(String pattern, String why) {
        Outcome outcome = check("""
                {"variables": {"s": {"type": "string", "pattern": "%s"}}, "state": "{{s}}",
                 "questions": {"q": {"type": "noul"}}}""".formatted(pattern));
        assertThat(outcome.codes()).containsExactly("invalid_field");
        assertThat(outcome.params()).containsExactly("variables.s.pattern");
        assertThat(outcome.problems().getFirst().message()).contains(why, "RE2");
    }

    @Test
    void aVariablePatternThatMakesBacktrackingExplodeChecksADefaultAtOnce() {
        Outcome outcome = check("""
                {"variables": {"s": {"type": "string", "pattern": "^(a+)+$", "default": "%s!"}}, "state": "{{s}}",
                 "questions": {"q": {"type": "noul"}}}""".formatted("a".repeat(10_000)));
        assertThat(outcome.params()).containsExactly("variables.s.default");
        assertThat(outcome.problems().getFirst().message()).contains("does not match the pattern ^(a+)+$");
    }

    @Test
    void defaultsAreCheckedAgainstTheSpec() {
        Outcome outcome = check("""
                {"variables": {"n": {"type": "integer", "minimum": 1, "default": 0},
                               "s": {"type": "string", "enum": ["x"], "default": "y"},
                               "both": {"type": "string", "sensitive": true, "trusted": true}},
                 "state": "{{n}} {{s}} {{both}}", "questions": {"q": {"type": "noul"}}}""");
        assertThat(outcome.params())
                .containsExactly("variables.n.default", "variables.s.default", "variables.both.trusted");
        ObjectNode optional = check("""
                {"variables": {"n": {"type": "integer", "default": 3}}, "state": "{{n}}",
                 "questions": {"q": {"type": "noul"}}}""").definition();
        assertThat(optional.at("/variables/n/required").asBoolean()).isFalse();
        assertThat(optional.at("/variables/n").fieldNames())
                .toIterable()
                .containsExactly("type", "default", "required", "sensitive", "trusted");
    }

    @Test
    void settingsAndExtensionsNameRealQuestions() {
        Outcome outcome = check("""
                {"questions": {"urgency": {"type": "score", "criteria": ["low", "high"]},
                               "team": {"type": "choice", "criteria": ["a", "b"]}},
                 "settings": {"act_threshold": 1.5, "questions": {"urgncy": {"temperature": 2},
                              "team": {"multi_threshold": 0.3}}, "colour": 1},
                 "extensions": {"options": ["urgency", "team", "nope"], "skip": true, "max_questions": 200}}""");
        assertThat(outcome.params())
                .containsExactly(
                        "settings.act_threshold",
                        "settings.questions.urgncy",
                        "settings.questions.team.multi_threshold",
                        "settings.colour",
                        "extensions.options[0]",
                        "extensions.options[2]",
                        "extensions.max_questions");
        assertThat(outcome.codes())
                .containsExactly(
                        "invalid_field",
                        "unknown_question",
                        "invalid_field",
                        "invalid_field",
                        "options_not_extensible",
                        "unknown_question",
                        "invalid_field");
        assertThat(outcome.problems().get(1).message()).contains("Did you mean `urgency`?");
    }

    @ParameterizedTest
    @CsvSource({
        "temperature, 50",
        "temperature, 20.5",
        "temperature, 0",
        "act_threshold, 0",
        "act_threshold, 1.01",
        "multi_threshold, 1"
    })
    void settingsOutsideTheirRangesAreInvalid(String setting, String value) {
        Outcome outcome = check(
                "{\"questions\": {\"q\": {\"type\": \"noul\"}}, \"settings\": {\"" + setting + "\": " + value + "}}");
        assertThat(outcome.codes()).containsExactly("invalid_field");
        assertThat(outcome.params()).containsExactly("settings." + setting);
    }

    @Test
    void settingsAtTheEdgesOfTheirRangesAreKept() {
        ObjectNode definition = check("""
                {"questions": {"q": {"type": "noul"}}, "settings": {"temperature": 20, "act_threshold": 1}}""").definition();
        assertThat(definition.at("/settings/temperature").asDouble()).isEqualTo(20);
    }

    @Test
    void unusedVariablesWarn() {
        var result = check("""
                {"variables": {"msg": {"type": "string"}, "extra": {"type": "string"}, "teams": {"type": "options"}},
                 "state": "{{msg}}", "questions": {"q": {"type": "noul"}}}""");
        assertThat(result.problems()).isEmpty();
        assertThat(result.result().warnings())
                .extracting(w -> w.code().code() + " " + w.param())
                .containsExactly("variable_unreferenced variables.extra", "variable_unreferenced variables.teams");
    }

    @Test
    void escapedBracesAreNotPlaceholders() {
        assertThat(check("""
                {"variables": {"m": {"type": "string"}}, "state": "{{m}} and \\\\{{literal}}",
                 "questions": {"q": {"type": "noul"}}}""").problems()).isEmpty();
    }
}
