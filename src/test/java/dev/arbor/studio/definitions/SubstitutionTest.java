package dev.arbor.studio.definitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.json.Json;
import org.junit.jupiter.api.Test;

class SubstitutionTest {
    private static final byte[] KEY = new byte[32];

    private static TemplateDefinition definition(String json) {
        return TestDefinitions.normal(json);
    }

    private static final String Q = "\"questions\": {\"q\": {\"type\": \"noul\"}}";

    @Test
    void embeddedPlaceholdersRenderAsTextAndAbsentOptionalsAsNothing() {
        TemplateDefinition definition = definition("""
                {"variables": {"tier": {"type": "string"}, "n": {"type": "integer", "required": false},
                               "msg": {"type": "string"}},
                 "state": "Plan: {{tier}}\\nOpen invoices: {{n}}\\n\\n{{msg}}", %s}""".formatted(Q));
        var result =
                Substitution.apply(definition, Json.read("{\"tier\": \"enterprise\", \"msg\": \"Billed twice\"}"), KEY);
        assertThat(result.state().asText()).isEqualTo("Plan: enterprise\nOpen invoices: \n\nBilled twice");
    }

    @Test
    void oneSinglePassAndEscapedBraces() {
        TemplateDefinition definition = definition("""
                {"variables": {"a": {"type": "string"}, "b": {"type": "string"}},
                 "state": "A={{a}} B={{b}} literal=\\\\{{a}}", %s}""".formatted(Q));
        var result = Substitution.apply(definition, Json.read("{\"a\": \"{{b}}\", \"b\": \"SECRET\"}"), KEY);
        assertThat(result.state().asText()).isEqualTo("A={{b}} B=SECRET literal={{a}}");
    }

    @Test
    void wholeValuePlaceholdersKeepTheirTypeAndVanishWhenAbsent() {
        TemplateDefinition definition = definition("""
                {"variables": {"n": {"type": "integer"}, "tags": {"type": "json"},
                               "note": {"type": "string", "required": false}},
                 "state": {"count": "{{n}}", "tags": "{{tags}}", "note": "{{note}}", "list": ["{{note}}", "x {{n}}"]},
                 %s}""".formatted(Q));
        var result = Substitution.apply(definition, Json.read("{\"n\": 3, \"tags\": {\"a\": [1, 2]}}"), KEY);
        assertThat(result.state().toString()).isEqualTo("{\"count\":3,\"tags\":{\"a\":[1,2]},\"list\":[\"x 3\"]}");
    }

    @Test
    void withoutAStateTemplateTheVariablesAreTheState() {
        TemplateDefinition definition = definition("""
                {"variables": {"msg": {"type": "string"}, "plan": {"type": "string", "default": "free"},
                               "photo": {"type": "image", "required": false}}, %s}""".formatted(Q));
        var result = Substitution.apply(definition, Json.read("{\"msg\": \"hi\", \"photo\": \"file_01\"}"), KEY);
        assertThat(result.state().toString()).isEqualTo("{\"msg\":\"hi\",\"plan\":\"free\"}");
        assertThat(result.media()).containsExactly(new Substitution.Media("image", "photo", "file_01"));
    }

    @Test
    void everyVariableProblemIsReportedWithItsParam() {
        TemplateDefinition definition = definition("""
                {"variables": {"message": {"type": "string"}, "seats": {"type": "integer", "maximum": 10},
                               "plan": {"type": "string", "enum": ["free", "pro"]}},
                 "state": "{{message}} {{seats}} {{plan}}", %s}""".formatted(Q));
        assertThatThrownBy(() -> Substitution.apply(
                        definition, Json.read("{\"mesage\": \"x\", \"seats\": \"3\", \"plan\": \"gold\"}"), KEY))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.problems())
                            .extracting(p -> p.code().code() + " " + p.param())
                            .containsExactly(
                                    "unknown_variable variables.mesage", "missing_variable variables.message",
                                    "invalid_variable variables.seats", "invalid_variable variables.plan");
                    assertThat(e.problems().getFirst().message()).contains("Did you mean `message`?");
                    assertThat(e.problems().get(2).message()).contains("must be an integer, not a string");
                    assertThat(e.problems().get(3).message()).contains("free, pro");
                });
    }

    @Test
    void anEmptySituationIsRefused() {
        TemplateDefinition definition = definition("""
                {"variables": {"msg": {"type": "string", "required": false}}, "state": "{{msg}}", %s}""".formatted(Q));
        assertThatThrownBy(() -> Substitution.apply(definition, Json.read("{\"msg\": \"   \"}"), KEY))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    Problem problem = e.problems().getFirst();
                    assertThat(problem.code().code()).isEqualTo("empty_state");
                    assertThat(problem.param()).isEqualTo("variables");
                });
    }

    @Test
    void sensitiveValuesAreStoredOnlyAsHmacs() {
        TemplateDefinition definition = definition("""
                {"variables": {"email": {"type": "string", "sensitive": true}, "msg": {"type": "string"}},
                 "state": "From {{email}}: {{msg}}", %s}""".formatted(Q));
        var result =
                Substitution.apply(definition, Json.read("{\"email\": \"ann@example.com\", \"msg\": \"hi\"}"), KEY);
        assertThat(result.state().asText()).isEqualTo("From ann@example.com: hi");
        assertThat(result.stored().toString()).doesNotContain("ann@example.com");
        assertThat(result.stored().at("/email/$redacted").asText())
                .isEqualTo("hmac-sha256:" + Substitution.hmac(KEY, "\"ann@example.com\""));
        assertThat(result.stored().path("msg").asText()).isEqualTo("hi");
    }

    @Test
    void structuredValuesRenderAsIndentedLines() {
        assertThat(Substitution.asText(Json.read("{\"customer\": {\"tier\": \"enterprise\"}, \"message\": \"X\"}")))
                .isEqualTo("customer:\n  tier: enterprise\nmessage: X");
        assertThat(Substitution.asText(Json.read("[\"a\", 2, null]"))).isEqualTo("- a\n- 2\n- ");
    }
}
