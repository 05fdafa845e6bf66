package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import org.junit.jupiter.api.Test;

/** Test examples over HTTP; run once on SQLite and once on PostgreSQL. */
abstract class ExampleApiContract extends StudioApiContract {
    @Test
    void testExamplesAreCheckedRevisionedImportedAndTakenFromDecisions() {
        String e = "/v1/studio/templates/triage/examples";
        String refund = """
                {"variables": {"message": "Refund please", "tier": "pro"},
                 "expected": {"team": "billing", "churn": true, "urgency": 1, "eta": "3"}, "tags": ["refunds"]}""";
        HttpReply created = http.post(e, refund);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        JsonNode example = created.json();
        String id = example.path("id").asText();
        int first = example.path("revision").asInt();
        assertThat(id).startsWith("ex_");
        assertThat(example.path("expected").toString())
                .isEqualTo("{\"team\":\"billing\",\"churn\":\"yes\",\"urgency\":\"1\",\"eta\":3}");
        JsonNode duplicate = http.post(e, refund).assertError(409, "example_exists", null);
        assertThat(duplicate.path("existing_id").asText()).isEqualTo(id);

        http.post(e, "{\"variables\": {\"tier\": \"gold\"}}").assertError(400, "missing_variable", "variables.message");
        http.post(e, "{\"variables\": {\"message\": \"x\"}, \"expected\": {\"team\": \"legal\"}}")
                .assertError(400, "invalid_expected", "expected.team");
        JsonNode typo = http.post(e, "{\"variables\": {\"message\": \"x\"}, \"expected\": {\"tem\": 1}}")
                .assertError(400, "invalid_expected", "expected.tem");
        assertThat(typo.path("message").asText()).contains("`team`");
        http.post(e, "{\"variables\": {\"message\": \"x\"}, \"state\": \"s\"}")
                .assertError(400, "state_not_allowed", "state");
        http.post(e, "{\"variables\": {\"message\": \"x\"}, \"split\": \"train\"}")
                .assertError(400, "invalid_field", "split");
        JsonNode several = http.post(
                        e,
                        "{\"variables\": {\"message\": \"x\"}, \"split\": 1, \"note\": \"" + "n".repeat(2001)
                                + "\", \"labels\": {}}")
                .assertError(400, "invalid_field", "labels");
        assertThat(several.path("details").findValuesAsText("param")).containsExactly("labels", "split", "note");
        assertThat(several.path("details").findValuesAsText("message"))
                .contains("`split` must be test or calibration.");
        String tooLongState = "\"" + "a".repeat(200_001) + "\"";
        http.post("/v1/studio/templates/plain/examples", "{\"state\": " + tooLongState + "}")
                .assertError(400, "invalid_field", "state");
        http.post("/v1/studio/templates/plain/examples", "{\"state\": {\"a\": \"" + "a".repeat(200_000) + "\"}}")
                .assertError(400, "invalid_field", "state");
        assertThat(http.post(
                                "/v1/studio/templates/plain/examples/import",
                                "{\"examples\": [{\"state\": " + tooLongState + "}]}")
                        .json()
                        .at("/failed/0/error/param")
                        .asText())
                .isEqualTo("examples[0].state");

        JsonNode edited =
                http.patch(e + "/" + id, "{\"expected\": {\"team\": \"tech\"}}").json();
        assertThat(edited.path("id").asText()).isEqualTo(id);
        assertThat(edited.path("revision").asInt()).isGreaterThan(first);
        assertThat(edited.at("/expected/team").asText()).isEqualTo("tech");
        assertThat(edited.at("/expected/churn").asText()).isEqualTo("yes");
        assertThat(http.get(e + "/" + id + "?revision=" + first)
                        .json()
                        .at("/expected/team")
                        .asText())
                .isEqualTo("billing");
        http.patch(e + "/" + id, "{\"revision\": 9}").assertError(400, "read_only_field", "revision");

        JsonNode imported = http.post(e + "/import", """
                {"examples": [{"variables": {"message": "Where is my invoice?"}, "expected": {"team": "billing"}},
                              {"variables": {"message": "Refund please", "tier": "pro"}},
                              {"variables": {}}]}""").json();
        assertThat(imported.path("object").asText()).isEqualTo("import_result");
        assertThat(imported.path("created").asInt()).isEqualTo(1);
        assertThat(imported.at("/failed/0/index").asInt()).isEqualTo(1);
        assertThat(imported.at("/failed/0/error/code").asText()).isEqualTo("example_exists");
        assertThat(imported.at("/failed/1/error/code").asText()).isEqualTo("missing_variable");
        assertThat(imported.at("/failed/1/error/param").asText()).isEqualTo("examples[2].variables.message");
        var tooMany = new StringBuilder("{\"examples\": [");
        for (int i = 0; i <= 5000; i++) {
            tooMany.append(i == 0 ? "{}" : ",{}");
        }
        http.post(e + "/import", tooMany + "]}").assertError(400, "too_many_items", "examples");
        http.post(e + "/import", "{\"examples\": []}").assertError(400, "invalid_field", "examples");

        String plainDecision = http.post(
                        D, "{\"template\": \"triage\", \"variables\": {\"message\": \"From a " + "decision\"}}")
                .json()
                .path("id")
                .asText();
        http.post(D + "/" + plainDecision + "/feedback", "{\"expected\": {\"churn\": false}, \"rating\": null}");
        JsonNode fromDecision = http.post(
                        e, "{\"from_decision\": \"" + plainDecision + "\", \"expected\": " + "{\"team\": \"tech\"}}")
                .json();
        assertThat(fromDecision.at("/variables/message").asText()).isEqualTo("From a decision");
        assertThat(fromDecision.path("expected").toString()).isEqualTo("{\"churn\":\"no\",\"team\":\"tech\"}");
        assertThat(fromDecision.path("from_decision").asText()).isEqualTo(plainDecision);
        String sensitive = http.post(
                        D, "{\"template\": \"triage\", \"variables\": {\"message\": \"m\", " + "\"email\": \"a@b.c\"}}")
                .json()
                .path("id")
                .asText();
        http.post(e, "{\"from_decision\": \"" + sensitive + "\"}")
                .assertError(409, "input_unavailable", "from_decision");

        JsonNode list = http.get(e).json();
        assertThat(list.path("data").size()).isEqualTo(3);
        assertThat(http.get(e + "?tag=refunds").json().path("data").size()).isEqualTo(1);
        assertThat(http.get(e + "?q=invoice").json().path("data").size()).isEqualTo(1);
        assertThat(http.get(e + "?labelled=true").json().path("data").size()).isEqualTo(3);
        assertThat(http.get(e + "?split=calibration").json().path("data").size())
                .isZero();
        http.get(e + "?split=train").assertError(400, "invalid_parameter", "split");
        assertThat(list.path("revision").asInt())
                .isGreaterThan(edited.path("revision").asInt());
        HttpReply export = http.get(e + "/export");
        assertThat(export.body().split("\n")).hasSize(3);
        assertThat(export.header("content-disposition")).contains("triage-examples.jsonl");

        int before = http.get(e).json().path("revision").asInt();
        assertThat(http.delete(e + "/" + id).json().path("deleted").asBoolean()).isTrue();
        http.get(e + "/" + id).assertError(404, "example_not_found", "example_id");
        assertThat(http.get(e + "/" + id + "?revision=" + before).status()).isEqualTo(200);
        http.delete(e + "/" + id).assertError(404, "example_not_found", "example_id");
        http.get(e + "?revision=99999").assertError(400, "invalid_parameter", "revision");
        http.post("/v1/studio/templates/nope/examples", refund).assertError(404, "template_not_found", "template");
    }
}
