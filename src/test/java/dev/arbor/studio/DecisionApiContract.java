package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Decisions over HTTP on the deterministic hash model; run once on SQLite and once on PostgreSQL. */
abstract class DecisionApiContract extends ServerContract {
    static final String D = "/v1/studio/decisions";
    static final String ALL_TYPES = """
            {"team": {"type": "choice", "criteria": ["billing", "tech", "sales"]},
             "urgent": {"type": "noul"},
             "level": {"type": "score", "criteria": ["low", "mid", "high"]},
             "tags": {"type": "multi", "criteria": ["refund", "angry", "legal"]},
             "order": {"type": "rank", "criteria": ["a", "b", "c"]},
             "days": {"type": "number", "criteria": [1, 2, 5, 10], "unit": "days"}}""";

    @BeforeAll
    void createTemplates() {
        assertThat(http.post("/v1/studio/templates", """
                {"id": "triage", "model": "hash-decider",
                 "variables": {"message": {"type": "string", "max_length": 200},
                               "tier": {"type": "string", "enum": ["free", "pro"], "default": "free"},
                               "email": {"type": "string", "sensitive": true, "required": false},
                               "n": {"type": "integer", "minimum": 0, "required": false}},
                 "state": "Plan: {{tier}}\\nOpen invoices: {{n}}\\nFrom: {{email}}\\n\\n{{message}}",
                 "questions": {"team": {"type": "choice", "instructions": "Team for a {{tier}} customer?",
                                        "criteria": ["billing", "tech"]},
                               "urgency": {"type": "score", "criteria": ["low", "high"]},
                               "churn": {"type": "noul"},
                               "eta": {"type": "number", "criteria": [1, 3]}},
                 "settings": {"temperature": 1.3, "questions": {"churn": {"act_threshold": 0.5}}},
                 "extensions": {"questions": true, "max_questions": 1, "options": ["team", "eta"],
                                "skip": ["urgency"]}}""").status()).isEqualTo(201);
        assertThat(http.post("/v1/studio/templates", """
                {"id": "plain", "model": "hash-decider",
                 "questions": {"ok": {"type": "noul"}, "kind": {"type": "choice", "criteria": ["a", "b"]}},
                 "extensions": {"questions": false}}""").status()).isEqualTo(201);
    }

    static String adHoc(String state) {
        return "{\"model\": \"hash-decider\", \"state\": \"" + state + "\", \"questions\": " + ALL_TYPES + "}";
    }

    @Test
    void anAdHocDecisionAnswersEveryTypeAndIsKeptInHistory() {
        HttpReply reply = http.post(D, adHoc("Billed twice, wants a refund"));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode decision = reply.json();
        String id = decision.path("id").asText();
        assertThat(id).startsWith("dec_");
        assertThat(reply.header("x-studio-stored")).isEqualTo("full");
        assertThat(reply.header("x-studio-decision-id")).isEqualTo(id);
        assertThat(reply.header("location")).isEqualTo(D + "/" + id);
        assertThat(decision.path("status").asText()).isEqualTo("completed");
        assertThat(decision.path("model").asText()).isEqualTo("hash-decider");
        JsonNode answers = decision.path("answers");
        assertThat(answers.fieldNames())
                .toIterable()
                .containsExactly("team", "urgent", "level", "tags", "order", "days");
        assertThat(answers.at("/team/probabilities").size()).isEqualTo(3);
        assertThat(answers.at("/urgent/decision").asText()).isIn("yes", "no");
        assertThat(answers.at("/level/legend/2").asText()).isEqualTo("high");
        assertThat(answers.at("/tags/threshold").asDouble()).isEqualTo(0.5);
        assertThat(answers.at("/order/ranking").size()).isEqualTo(3);
        assertThat(answers.at("/days/unit").asText()).isEqualTo("days");
        double sum = 0;
        for (JsonNode p : answers.at("/team/probabilities")) {
            sum += p.asDouble();
        }
        assertThat(sum).isBetween(0.999, 1.001);
        answers.forEach(answer -> {
            assertThat(answer.path("origin").asText()).isEqualTo("adhoc");
            assertThat(answer.path("act").asBoolean())
                    .isEqualTo(answer.path("certainty").asDouble() >= 0.9);
        });
        assertThat(decision.path("settings")
                        .path("sources")
                        .path("act_threshold")
                        .asText())
                .isEqualTo("studio");
        assertThat(decision.has("input")).isFalse();

        JsonNode stored = http.get(D + "/" + id).json();
        assertThat(stored.path("answers")).isEqualTo(answers);
        assertThat(stored.at("/input/state").asText()).isEqualTo("Billed twice, wants a refund");
        assertThat(stored.at("/input/questions/team/criteria").toString())
                .isEqualTo("{\"billing\":null,\"tech\":null,\"sales\":null}");
        assertThat(stored.at("/input/rendered_state").isMissingNode()).isTrue();
        JsonNode raw = http.get(D + "/" + id + "?include=answers.raw_probabilities,input.rendered_state")
                .json();
        assertThat(raw.at("/answers/team/raw_probabilities").size()).isEqualTo(3);
        assertThat(raw.at("/input/rendered_state").asText()).isEqualTo("Billed twice, wants a refund");
        http.get(D + "/" + id + "?include=secrets").assertError(400, "invalid_parameter", "include");
    }

    @Test
    void theSameInputGetsTheSameAnswersOnEveryRoute() {
        JsonNode first = http.post(D, adHoc("Same input")).json();
        JsonNode second = http.post(D, adHoc("Same input")).json();
        assertThat(second.path("answers")).isEqualTo(first.path("answers"));
        assertThat(second.path("id")).isNotEqualTo(first.path("id"));
        HttpReply wire = http.post("/v1/decide", adHoc("Same input"));
        assertThat(wire.status()).isEqualTo(200);
        assertThat(wire.json().at("/answers/team/probabilities")).isEqualTo(first.at("/answers/team/probabilities"));
        assertThat(http.get(D + "/" + first.path("id").asText() + "?format=decide")
                        .json()
                        .path("answers"))
                .isEqualTo(wire.json().path("answers"));
    }

    @Test
    void everyProblemOfTheBodyIsReportedAtOnce() {
        JsonNode error = http.post(D, """
                {"template": 5, "stream": true, "act_threshold": 1.5, "store": "forever", "include": ["secrets"],
                 "on_store_error": "panic", "background": "yes", "media": {},
                 "metadata": {"a": 1}}""").assertError(400, "invalid_reference", "template");
        var codes = new ArrayList<String>();
        error.path("details")
                .forEach(d -> codes.add(
                        d.path("code").asText() + "@" + d.path("param").asText()));
        assertThat(codes)
                .containsExactlyInAnyOrder(
                        "invalid_reference@template",
                        "invalid_field@stream",
                        "invalid_field@act_threshold",
                        "invalid_field@store",
                        "invalid_field@include",
                        "invalid_field@on_store_error",
                        "invalid_field@background",
                        "invalid_field@media",
                        "invalid_metadata@metadata.a");
        http.post(D, "{\"template\": \"\"}").assertError(400, "invalid_reference", "template");
        var tooMany = new StringBuilder("{");
        for (int i = 0; i < 17; i++) {
            tooMany.append(i == 0 ? "" : ",").append("\"k").append(i).append("\": \"v\"");
        }
        http.post(D, adHoc("x").replace("{\"model\"", "{\"metadata\": " + tooMany + "}, \"model\""))
                .assertError(400, "invalid_metadata", "metadata");
        http.post(
                        D,
                        adHoc("x")
                                .replace(
                                        "{\"model\"",
                                        "{\"metadata\": {\"" + "k".repeat(65) + "\": \"v\"}, " + "\"model\""))
                .assertError(400, "invalid_metadata", "metadata." + "k".repeat(65));
        http.post(
                        D,
                        adHoc("x")
                                .replace(
                                        "{\"model\"",
                                        "{\"metadata\": {\"k\": \"" + "v".repeat(513) + "\"}, " + "\"model\""))
                .assertError(400, "invalid_metadata", "metadata.k");
        http.post(D, "[1]").assertError(400, "invalid_json", null);
    }

    @Test
    void problemsOfTheBodyAndOfItsQuestionsAreReportedTogether() {
        JsonNode error = http.post(D, """
                {"state": 3, "model": 5,
                 "questions": {"q": {"type": "maybe"}, "team": {"type": "choice"}}}""").assertError(400, "invalid_field", "state");
        var codes = new ArrayList<String>();
        error.path("details")
                .forEach(d -> codes.add(
                        d.path("code").asText() + "@" + d.path("param").asText()));
        assertThat(codes)
                .containsExactlyInAnyOrder(
                        "invalid_field@state",
                        "invalid_field@model",
                        "invalid_field@questions.q.type",
                        "missing_field@questions.team.criteria");
    }

    @Test
    void unknownFieldsAreWarnedAboutNotRefused() {
        JsonNode decision = http.post(D, adHoc("x").replace("{\"model\"", "{\"temprature\": 2, \"model\""))
                .json();
        assertThat(decision.path("warnings").toString())
                .contains("unknown_field_ignored")
                .contains("temprature");
    }

    @Test
    void theSituationAndVariablesAreChecked() {
        http.post(D, "{\"questions\": {\"q\": {\"type\": \"noul\"}}}").assertError(400, "state_required", "state");
        http.post(D, "{\"state\": \"  \", \"questions\": {\"q\": {\"type\": \"noul\"}}}")
                .assertError(400, "empty_state", "state");
        http.post(D, "{\"state\": 3, \"questions\": {\"q\": {\"type\": \"noul\"}}}")
                .assertError(400, "invalid_field", "state");
        http.post(D, "{\"state\": \"x\", \"variables\": {\"a\": 1}, \"questions\": {\"q\": {\"type\": \"noul\"}}}")
                .assertError(400, "variables_need_template", "variables");
        http.post(D, "{\"state\": \"x\"}").assertError(400, "missing_field", "questions");
        http.post(D, "{\"template\": \"plain\", \"variables\": {\"a\": 1}, \"state\": \"x\"}")
                .assertError(400, "variables_need_template", "variables");
        http.post(D, "{\"template\": \"plain\"}").assertError(400, "state_required", "state");
        http.post(D, "{\"template\": \"triage\", \"variables\": {\"message\": \"hi\"}, \"state\": \"x\"}")
                .assertError(400, "state_not_allowed", "state");
        JsonNode error = http.post(D, "{\"template\": \"triage\", \"variables\": {\"tier\": \"gold\", \"mesage\": 1}}")
                .assertError(400, "unknown_variable", "variables.mesage");
        assertThat(error.path("message").asText()).contains("Did you mean `message`?");
        var codes = new ArrayList<String>();
        error.path("details")
                .forEach(d -> codes.add(
                        d.path("code").asText() + "@" + d.path("param").asText()));
        assertThat(codes)
                .containsExactlyInAnyOrder(
                        "unknown_variable@variables.mesage",
                        "invalid_variable@variables.tier",
                        "missing_variable@variables.message");
        http.post(D, "{\"template\": \"triage\", \"variables\": {\"message\": \"hi\", \"n\": -1}}")
                .assertError(400, "invalid_variable", "variables.n");
    }

    @Test
    void aTemplatedDecisionFillsTheStateAndKeepsSensitiveValuesOut() {
        HttpReply reply = http.post(D, """
                {"template": "triage", "variables": {"message": "Refund please", "tier": "pro",
                 "email": "ann@example.com"}, "include": "input,input.rendered_state"}""");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode decision = reply.json();
        assertThat(decision.path("template").toString())
                .isEqualTo("{\"id\":\"triage\",\"version\":1,\"ref\":"
                        + "\"triage\",\"resolved_from\":\"latest\",\"attribution\":\"explicit\"}");
        assertThat(decision.at("/input/state").asText())
                .isEqualTo("Plan: pro\nOpen invoices: \nFrom: [redacted:email]\n\nRefund please");
        assertThat(decision.at("/input/variables/email/$redacted").asText()).startsWith("hmac-sha256:");
        assertThat(decision.at("/input/questions/team/instructions").asText()).isEqualTo("Team for a pro customer?");
        assertThat(decision.at("/settings/temperature").asDouble()).isEqualTo(1.3);
        assertThat(decision.at("/settings/sources/questions.churn.act_threshold")
                        .asText())
                .isEqualTo("template.questions");
        assertThat(decision.at("/answers/churn/act").asBoolean())
                .isEqualTo(decision.at("/answers/churn/certainty").asDouble() >= 0.5);
        String stored = http.get(D + "/" + decision.path("id").asText()).body();
        assertThat(stored).doesNotContain("ann@example.com");
    }

    @Test
    void callersMayExtendATemplateWithinItsRules() {
        HttpReply reply = http.post(D, """
                {"template": "triage@1", "variables": {"message": "hi"}, "skip": ["urgency"],
                 "add_options": {"team": {"sales": "New purchases"}, "eta": [2]},
                 "questions": {"lang": {"type": "choice", "criteria": ["en", "de"]}}}""");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode decision = reply.json();
        assertThat(decision.path("answers").fieldNames()).toIterable().containsExactly("team", "churn", "eta", "lang");
        assertThat(decision.at("/answers/team/origin").asText()).isEqualTo("extended");
        assertThat(decision.at("/answers/team/probabilities").has("sales")).isTrue();
        assertThat(decision.at("/answers/eta/probabilities").fieldNames())
                .toIterable()
                .containsExactly("1", "2", "3");
        assertThat(decision.at("/answers/lang/origin").asText()).isEqualTo("extra");
        assertThat(decision.at("/answers/churn/origin").asText()).isEqualTo("template");
        assertThat(decision.path("extensions").toString())
                .isEqualTo("{\"questions\":[\"lang\"],\"options\":"
                        + "{\"team\":[\"sales\"],\"eta\":[\"2\"]},\"skipped\":[\"urgency\"]}");
        assertThat(decision.at("/template/resolved_from").asText()).isEqualTo("pinned");

        String base = "{\"template\": \"triage\", \"variables\": {\"message\": \"hi\"}, ";
        http.post(D, base + "\"skip\": [\"churn\"]}").assertError(400, "skip_not_allowed", "skip[0]");
        http.post(D, base + "\"skip\": [\"nope\"]}").assertError(400, "unknown_question", "skip[0]");
        http.post(D, base + "\"add_options\": {\"churn\": [\"maybe\"]}}")
                .assertError(400, "options_not_extensible", "add_options.churn");
        http.post(D, base + "\"add_options\": {\"urgency\": [\"mid\"]}}")
                .assertError(400, "options_not_extensible", "add_options.urgency");
        http.post(D, base + "\"add_options\": {\"nope\": [\"x\"]}}")
                .assertError(400, "unknown_question", "add_options.nope");
        http.post(D, base + "\"add_options\": {\"team\": [\"billing\"]}}")
                .assertError(400, "option_conflict", "add_options.team.billing");
        http.post(D, base + "\"add_options\": {\"eta\": [3]}}")
                .assertError(400, "option_conflict", "add_options.eta[0]");
        http.post(D, base + "\"questions\": {\"churn\": {\"type\": \"noul\"}}}")
                .assertError(400, "question_conflict", "questions.churn");
        http.post(D, base + "\"questions\": {\"a\": {\"type\": \"noul\"}, \"b\": {\"type\": \"noul\"}}}")
                .assertError(400, "too_many_extra_questions", "questions");
        http.post(D, base + "\"questions\": {\"a\": {\"type\": \"maybe\"}}}")
                .assertError(400, "invalid_field", "questions.a.type");
        http.post(D, base + "\"settings\": {\"questions\": {\"nope\": {\"temperature\": 2}}}}")
                .assertError(400, "unknown_question", "settings.questions.nope");
        http.post(D, base + "\"settings\": {\"temperature\": 0}}")
                .assertError(400, "invalid_field", "settings.temperature");
        http.post(D, base + "\"extensions\": {\"skip\": [\"nope\"]}}")
                .assertError(400, "unknown_question", "extensions.skip[0]");
        http.post(D, "{\"template\": \"plain\", \"state\": \"x\", \"questions\": {\"a\": {\"type\": \"noul\"}}}")
                .assertError(400, "extension_not_allowed", "questions");
        http.post(D, "{\"template\": \"plain\", \"state\": \"x\", \"add_options\": {\"kind\": [\"c\"]}}")
                .assertError(400, "extension_not_allowed", "add_options.kind");
        http.post(D, "{\"state\": \"x\", \"questions\": {\"a\": {\"type\": \"noul\"}}, \"skip\": [\"a\"]}")
                .assertError(400, "requires_template", "skip");
        http.post(D, "{\"state\": \"x\", \"questions\": {\"a\": {\"type\": \"noul\"}}, \"add_options\": {\"a\": [1]}}")
                .assertError(400, "requires_template", "add_options");
    }

    @Test
    void skippingEveryQuestionLeavesNothingToAsk() {
        http.post("/v1/studio/templates", """
                {"id": "one-question", "model": "hash-decider", "questions": {"ok": {"type": "noul"}},
                 "extensions": {"skip": true}}""");
        http.post(D, "{\"template\": \"one-question\", \"state\": \"x\", \"skip\": [\"ok\"]}")
                .assertError(400, "no_questions", "skip");
    }

    @Test
    void templatesAndVersionsThatDoNotExistAre404() {
        http.post(D, "{\"template\": \"nope\", \"state\": \"x\"}").assertError(404, "template_not_found", "template");
        JsonNode error = http.post(D, "{\"template\": \"plain@9\", \"state\": \"x\"}")
                .assertError(404, "template_version_not_found", "template");
        assertThat(error.path("message").asText()).contains("1");
        http.post(D, "{\"template\": \"plain@stable\", \"state\": \"x\"}")
                .assertError(404, "alias_not_found", "template");
    }

    @Test
    void modelsAreCheckedBeforeAnythingLoads() {
        JsonNode notFound =
                http.post(D, adHoc("x").replace("hash-decider", "gpt-9")).assertError(404, "model_not_found", "model");
        assertThat(notFound.path("message").asText()).contains("hash-decider");
        HttpReply incompatible = http.post(D, """
                {"model": "hash-small", "state": "x",
                 "questions": {"a": {"type": "score", "criteria": ["1", "2"]},
                               "b": {"type": "choice", "criteria": ["1", "2", "3", "4", "5"]},
                               "c": {"type": "noul"}, "d": {"type": "noul"}},
                 "media": [{"data": "data:image/png;base64,iVBORw0KGgo="}]}""");
        assertThat(incompatible.status()).isEqualTo(400);
        JsonNode error = incompatible.json().path("error");
        assertThat(error.path("code").asText()).isEqualTo("model_incompatible");
        assertThat(error.path("param").asText()).isEqualTo("model");
        var codes = new ArrayList<String>();
        error.path("details").forEach(d -> codes.add(d.path("code").asText()));
        assertThat(codes)
                .containsExactly(
                        "type_not_supported", "too_many_options", "too_many_questions", "modality_not_supported");
        assertThat(http.get("/v1/studio/models/hash-small")
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("downloaded");
        http.post(
                        D,
                        "{\"template\": \"plain\", \"state\": \"x\", "
                                + "\"media\": [{\"data\": \"data:image/png;base64,iVBORw0KGgo=\"}]}")
                .assertError(400, "modality_not_allowed", "media[0].data");
        http.post(
                        D,
                        adHoc("x")
                                .replace(
                                        "{\"model\"",
                                        "{\"media\": [{\"data\": \"data:text/plain;base64,aGk=\"}], " + "\"model\""))
                .assertError(400, "invalid_field", "media[0].data");
        http.post(D, adHoc("x").replace("{\"model\"", "{\"media\": [{\"file_id\": \"file_01\"}], \"model\""))
                .assertError(404, "file_not_found", "media[0].file_id");
    }

    @Test
    void mediaIsHashedAndKeptOnlyWhenHistoryKeepsEverything() {
        String png = Base64.getEncoder().encodeToString(new byte[] {(byte) 0x89, 'P', 'N', 'G', 1, 2, 3});
        JsonNode decision = http.post(
                        D,
                        adHoc("with a picture")
                                .replace(
                                        "{\"model\"",
                                        "{\"media\": [{\"data\": " + "\"data:image/png;base64," + png
                                                + "\", \"name\": \"shot.png\"}], \"model\""))
                .json();
        JsonNode media = http.get(D + "/" + decision.path("id").asText()).json().at("/input/media/0");
        assertThat(media.path("type").asText()).isEqualTo("image");
        assertThat(media.path("content_type").asText()).isEqualTo("image/png");
        assertThat(media.path("bytes").asInt()).isEqualTo(7);
        assertThat(media.path("sha256").asText()).startsWith("sha256:");
        assertThat(media.path("available").asBoolean()).isTrue();
        assertThat(media.path("name").asText()).isEqualTo("shot.png");
    }

    @Test
    void storageLevelsKeepWhatTheyPromise() {
        HttpReply answersOnly =
                http.post(D, adHoc("answers only").replace("{\"model\"", "{\"store\": \"answers_only\", \"model\""));
        String id = answersOnly.json().path("id").asText();
        assertThat(answersOnly.header("x-studio-stored")).isEqualTo("answers_only");
        JsonNode stored = http.get(D + "/" + id).json();
        assertThat(stored.path("answers").isObject()).isTrue();
        assertThat(stored.path("input").isNull()).isTrue();
        assertThat(stored.path("store").asText()).isEqualTo("answers_only");
        http.get(D + "/" + id + "/input").assertError(409, "input_unavailable", null);
        http.action(D + "/" + id + "/rerun").assertError(409, "input_unavailable", null);

        HttpReply none = http.post(D, adHoc("nothing kept").replace("{\"model\"", "{\"store\": false, \"model\""));
        assertThat(none.status()).isEqualTo(200);
        assertThat(none.header("x-studio-stored")).isEqualTo("none");
        assertThat(none.header("x-studio-decision-id")).isNull();
        assertThat(none.json().path("store").asText()).isEqualTo("none");
        http.get(D + "/" + none.json().path("id").asText()).assertError(404, "decision_not_found", "decision_id");

        http.post(D, adHoc("x").replace("{\"model\"", "{\"store\": \"none\", \"background\": true, \"model\""))
                .assertError(400, "background_requires_store", "background");

        http.post("/v1/studio/templates", """
                {"id": "private", "model": "hash-decider", "storage": "answers_only",
                 "questions": {"ok": {"type": "noul"}}}""");
        JsonNode downgraded = http.post(D, "{\"template\": \"private\", \"state\": \"x\", \"store\": \"full\"}")
                .json();
        assertThat(downgraded.path("store").asText()).isEqualTo("answers_only");
        assertThat(downgraded.path("warnings").toString()).contains("store_downgraded");
        JsonNode quiet =
                http.post(D, "{\"template\": \"private\", \"state\": \"x\"}").json();
        assertThat(quiet.path("warnings").toString()).doesNotContain("store_downgraded");
    }

    @Test
    void historyListsNewestFirstWithFiltersAndCursorsThatHoldStill() {
        var ids = new ArrayList<String>();
        for (int i = 0; i < 5; i++) {
            ids.add(http.post(
                            D,
                            adHoc("listed " + i)
                                    .replace("{\"model\"", "{\"metadata\": {\"batch\": \"list\"}, " + "\"model\""))
                    .json()
                    .path("id")
                    .asText());
        }
        for (int i = 0; i < 2; i++) {
            ids.add(http.post(
                            D,
                            "{\"template\": \"plain\", \"state\": \"plain " + i + "\", \"metadata\": "
                                    + "{\"batch\": \"list\"}}")
                    .json()
                    .path("id")
                    .asText());
        }
        JsonNode all = http.get(D + "?metadata.batch=list&limit=100").json();
        var listed = new ArrayList<String>();
        all.path("data").forEach(d -> listed.add(d.path("id").asText()));
        assertThat(listed).containsExactlyElementsOf(ids.reversed());
        JsonNode first = all.path("data").path(0);
        assertThat(first.path("object").asText()).isEqualTo("decision.summary");
        assertThat(first.path("template").toString()).isEqualTo("{\"id\":\"plain\",\"version\":1}");
        assertThat(first.at("/answers/ok/decision").asText()).isIn("yes", "no");
        assertThat(first.path("metadata").toString()).isEqualTo("{\"batch\":\"list\"}");

        JsonNode page1 = http.get(D + "?metadata.batch=list&limit=3").json();
        assertThat(page1.path("has_more").asBoolean()).isTrue();
        http.post(D, adHoc("newer").replace("{\"model\"", "{\"metadata\": {\"batch\": \"list\"}, \"model\""));
        JsonNode page2 = http.get(D + "?metadata.batch=list&limit=3&after="
                        + page1.path("last_id").asText())
                .json();
        assertThat(page2.path("first_id").asText()).isEqualTo(ids.get(3));
        JsonNode back = http.get(D + "?metadata.batch=list&limit=3&before="
                        + page2.path("first_id").asText())
                .json();
        assertThat(back.path("first_id").asText())
                .isEqualTo(page1.path("first_id").asText());

        assertThat(http.get(D + "?metadata.batch=list&template=plain")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(2);
        assertThat(http.get(D + "?metadata.batch=list&template=plain@1")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(2);
        assertThat(http.get(D + "?metadata.batch=list&template=none")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(6);
        long yes = 0;
        long acted = 0;
        for (JsonNode d : all.path("data")) {
            yes += d.at("/answers/ok/decision").asText().equals("yes") ? 1 : 0;
            acted += d.path("act").asBoolean() ? 1 : 0;
        }
        assertThat(http.get(D + "?metadata.batch=list&answer.ok=true")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(yes);
        assertThat(http.get(D + "?metadata.batch=list&answer.ok=yes,no")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(2);
        assertThat(http.get(D + "?metadata.batch=list&answer.team=billing,tech,sales&act=true")
                        .json()
                        .path("data")
                        .size())
                .isLessThanOrEqualTo((int) acted);
        assertThat(http.get(D + "?metadata.batch=list&certainty_above.ok=0")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(2);
        assertThat(http.get(D + "?metadata.batch=list&certainty_below.ok=0")
                        .json()
                        .path("data")
                        .size())
                .isZero();
        assertThat(http.get(D + "?metadata.batch=list&created_after=-1h")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(8);
        long future = System.currentTimeMillis() / 1000 + 3600;
        assertThat(http.get(D + "?metadata.batch=list&created_after=" + future)
                        .json()
                        .path("data")
                        .size())
                .isZero();
        assertThat(http.get(D + "?metadata.batch=list&created_before=2000-01-01T00:00:00Z")
                        .json()
                        .path("data")
                        .size())
                .isZero();
        assertThat(http.get(D + "?metadata.batch=list&model=hash-decider&status=completed&surface=api")
                        .json()
                        .path("data")
                        .size())
                .isEqualTo(8);

        JsonNode full = http.get(D + "?metadata.batch=list&limit=1&view=full")
                .json()
                .path("data")
                .path(0);
        assertThat(full.path("object").asText()).isEqualTo("decision");
        assertThat(full.has("input")).isFalse();
        assertThat(http.get(D + "?metadata.batch=list&limit=1&view=full&include=input")
                        .json()
                        .at("/data/0/input/state")
                        .asText())
                .isEqualTo("newer");

        http.get(D + "?limit=101").assertError(400, "invalid_parameter", "limit");
        http.get(D + "?after=dec_nope").assertError(400, "invalid_parameter", "after");
        http.get(D + "?view=everything").assertError(400, "invalid_parameter", "view");
        http.get(D + "?act=maybe").assertError(400, "invalid_parameter", "act");
        http.get(D + "?created_after=last%20week").assertError(400, "invalid_parameter", "created_after");
        http.get(D + "?colour=red").assertError(400, "invalid_parameter", "colour");
        http.get(D + "?metadata.bad%22key=1").assertError(400, "invalid_parameter", "metadata.bad\"key");
        http.get(D + "?version=one").assertError(400, "invalid_parameter", "version");
        http.get(D + "?template=plain@9").assertError(404, "template_version_not_found", "template");
    }

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

    @Test
    void historyIsRedactedAndDeletedByFilterOrBySensitiveValue() {
        String erase = "{\"template\": \"triage\", \"variables\": {\"message\": \"hi\", \"email\": \"%s\"}, "
                + "\"metadata\": {\"batch\": \"erase\", \"ticket\": \"T-%d\"}}";
        String ann1 = http.post(D, erase.formatted("ann@example.com", 1))
                .json()
                .path("id")
                .asText();
        String ann2 = http.post(D, erase.formatted("ann@example.com", 2))
                .json()
                .path("id")
                .asText();
        String bob = http.post(D, erase.formatted("bob@example.com", 3))
                .json()
                .path("id")
                .asText();
        http.patch(D + "/" + bob, "{\"pinned\": true}");
        JsonNode answers = http.get(D + "/" + ann1).json().path("answers");

        http.post(D + "/delete", "{}").assertError(400, "filter_required", "filter");
        http.post(D + "/delete", "{\"filter\": {}}").assertError(400, "filter_required", "filter");
        http.post(D + "/delete", "{\"filter\": {\"act\": \"maybe\"}}")
                .assertError(400, "invalid_parameter", "filter.act");
        JsonNode dry = http.post(D + "/delete", "{\"filter\": {\"metadata.batch\": \"erase\"}, \"dry_run\": true}")
                .json();
        assertThat(dry.toString())
                .isEqualTo("{\"object\":\"decision.bulk_delete\",\"matched\":3,\"deleted\":2,"
                        + "\"skipped_pinned\":1,\"dry_run\":true}");
        assertThat(http.get(D + "/" + ann1).status()).isEqualTo(200);

        JsonNode redacted = http.post(D + "/redact", """
                {"filter": {"sensitive_hash": {"email": "ann@example.com"}},
                 "fields": ["input.variables.email", "metadata.ticket"]}""").json();
        assertThat(redacted.path("matched").asInt()).isEqualTo(2);
        assertThat(redacted.path("redacted").asInt()).isEqualTo(2);
        JsonNode after = http.get(D + "/" + ann1).json();
        assertThat(after.at("/input/variables/email").asText()).isEqualTo("[redacted]");
        assertThat(after.at("/input/state").asText()).isEqualTo("[redacted]");
        assertThat(after.at("/input/redacted").toString()).isEqualTo("[\"input.variables.email\"]");
        assertThat(after.path("metadata").toString()).isEqualTo("{\"batch\":\"erase\"}");
        assertThat(after.path("answers")).isEqualTo(answers);
        http.get(D + "/" + ann1 + "/input").assertError(409, "input_unavailable", null);
        http.action(D + "/" + ann1 + "/rerun").assertError(409, "input_unavailable", null);
        assertThat(http.get(D + "/" + bob)
                        .json()
                        .at("/input/variables/email/$redacted")
                        .asText())
                .startsWith("hmac-sha256:");

        JsonNode one = http.post(D + "/" + bob + "/redact", "{\"fields\": [\"input.media\", \"metadata.ticket\"]}")
                .json();
        assertThat(one.path("metadata").has("ticket")).isFalse();
        http.post(D + "/" + bob + "/redact", "{\"fields\": [\"answers\"]}")
                .assertError(400, "invalid_field", "fields[0]");
        http.post(D + "/" + bob + "/redact", "{}").assertError(400, "invalid_field", "fields");
        http.post(D + "/dec_nope/redact", "{\"fields\": [\"input.state\"]}")
                .assertError(404, "decision_not_found", "decision_id");

        JsonNode erased = http.post(
                        D + "/delete", "{\"filter\": {\"sensitive_hash\": {\"email\": " + "\"ann@example.com\"}}}")
                .json();
        assertThat(erased.path("deleted").asInt()).isEqualTo(2);
        http.get(D + "/" + ann2).assertError(404, "decision_not_found", "decision_id");
        JsonNode kept = http.post(D + "/delete", "{\"filter\": {\"metadata.batch\": \"erase\"}}")
                .json();
        assertThat(kept.path("deleted").asInt()).isZero();
        assertThat(kept.path("skipped_pinned").asInt()).isEqualTo(1);
        assertThat(http.post(
                                D + "/delete",
                                "{\"filter\": {\"metadata.batch\": \"erase\"}, \"include_pinned\": " + "true}")
                        .json()
                        .path("deleted")
                        .asInt())
                .isEqualTo(1);
    }

    @Test
    void historyExportsAsJsonLinesOrOneCsvRowPerAnswer() {
        for (int i = 0; i < 3; i++) {
            http.post(
                    D,
                    adHoc("export " + i)
                            .replace("{\"model\"", "{\"metadata\": {\"batch\": \"export\"}, " + "\"model\""));
        }
        HttpReply jsonl = http.get(D + "/export?metadata.batch=export");
        assertThat(jsonl.status()).isEqualTo(200);
        assertThat(jsonl.header("content-type")).startsWith("application/x-ndjson");
        String[] lines = jsonl.body().split("\n");
        assertThat(lines).hasSize(3);
        assertThat(lines[0]).contains("\"object\":\"decision\"").contains("\"state\":\"export 2\"");

        HttpReply csv = http.get(D + "/export?format=csv&metadata.batch=export");
        assertThat(csv.header("content-disposition")).contains("decisions.csv");
        String[] rows = csv.body().split("\r\n");
        assertThat(rows[0]).startsWith("decision_id,created_at,status,template");
        assertThat(rows).hasSize(1 + 3 * 6);
        assertThat(rows[1]).contains(",team,choice,");
        assertThat(java.util.Arrays.stream(rows)
                        .filter(r -> r.contains(",tags,multi,"))
                        .findFirst()
                        .orElseThrow())
                .matches(".*,tags,multi,[a-z;]*,.*");

        http.get(D + "/export?format=xlsx").assertError(400, "invalid_parameter", "format");
        http.get(D + "/export?act=maybe").assertError(400, "invalid_parameter", "act");
    }

    @Test
    void historyIsSearchedByWhatTheDecisionsReadAndNeverBySensitiveValues() {
        String tagged = "{\"metadata\": {\"batch\": \"search\"}, \"model\"";
        String invoice = http.post(D, adHoc("The invoice was charged twice").replace("{\"model\"", tagged))
                .json()
                .path("id")
                .asText();
        http.post(D, adHoc("The dashboard crashed again").replace("{\"model\"", tagged));
        http.post(
                D,
                adHoc("Charged quietly, answers only")
                        .replace(
                                "{\"model\"",
                                "{\"store\": \"answers_only\", " + "\"metadata\": {\"batch\": \"search\"}, \"model\""));
        http.post(
                D,
                "{\"template\": \"triage\", \"variables\": {\"message\": \"Refund the duplicate payment\", "
                        + "\"email\": \"zed@example.com\"}, \"metadata\": {\"batch\": \"search\"}}");
        String search = D + "?metadata.batch=search&q=";
        assertThat(http.get(search + "charged").json().path("data").size()).isEqualTo(1);
        assertThat(http.get(search + "twice%20INVOICE").json().at("/data/0/id").asText())
                .isEqualTo(invoice);
        assertThat(http.get(search + "dashboard").json().path("data").size()).isEqualTo(1);
        assertThat(http.get(search + "duplicate").json().path("data").size()).isEqualTo(1);
        assertThat(http.get(search + "zed").json().path("data").size())
                .as("sensitive values")
                .isZero();
        assertThat(http.get(search + "quietly").json().path("data").size())
                .as("answers only")
                .isZero();
        assertThat(http.get(search + "charged%20dashboard").json().path("data").size())
                .isZero();
        http.post(D + "/" + invoice + "/redact", "{\"fields\": [\"input.state\"]}");
        assertThat(http.get(search + "charged").json().path("data").size())
                .as("after redaction")
                .isZero();
    }

    @Test
    void compatibilitySaysWhichModelsCanAnswerAQuestionSetAndWhyOthersCannot() {
        JsonNode answer = http.post("/v1/studio/models/compatibility", """
                {"questions": {"pick": {"type": "choice", "criteria": ["a", "b", "c", "d", "e"]},
                               "ok": {"type": "noul"}},
                 "media_types": ["image"]}""").json();
        assertThat(answer.path("object").asText()).isEqualTo("model.compatibility");
        var byModel = new java.util.HashMap<String, JsonNode>();
        answer.path("models").forEach(m -> byModel.put(m.path("model").asText(), m));
        assertThat(byModel.get("hash-decider").path("ok").asBoolean()).isTrue();
        var small = new ArrayList<String>();
        byModel.get("hash-small")
                .path("problems")
                .forEach(p -> small.add(p.path("code").asText()));
        assertThat(small).containsExactlyInAnyOrder("too_many_options", "modality_not_supported");
        assertThat(byModel.get("minilm-decider").path("ok").asBoolean()).isFalse();
        assertThat(byModel.get("minilm-decider").path("status").asText()).isNotBlank();

        http.post("/v1/studio/models/compatibility", "{}").assertError(400, "missing_field", "questions");
        http.post("/v1/studio/models/compatibility", "{\"questions\": {\"q\": {\"type\": \"colour\"}}}")
                .assertError(400, "invalid_field", "questions.q.type");
        http.post(
                        "/v1/studio/models/compatibility",
                        "{\"questions\": {\"q\": {\"type\": \"noul\"}}, " + "\"media_types\": [\"smell\"]}")
                .assertError(400, "invalid_field", "media_types");
    }

    @Test
    void aTemplatesStatsFromTheIndexesEqualStatsCountedFromEveryRecord() {
        String template = """
                {"id": "stats-eq", "model": "hash-decider",
                 "variables": {"note": {"type": "string"}, "teams": {"type": "options"}},
                 "state": "{{note}}",
                 "questions": {"tags": {"type": "multi", "criteria": ["refund", "angry", "legal", "vip"]},
                               "days": {"type": "number", "criteria": [1, 2, 5, 10]},
                               "team": {"type": "choice", "criteria": "{{teams}}"},
                               "level": {"type": "choice", "criteria": ["low", "mid", "high"]}},
                 "extensions": {"questions": true, "options": ["level"]}}""";
        HttpReply created = http.post("/v1/studio/templates", template);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        var ids = new ArrayList<String>();
        for (int i = 0; i < 12; i++) {
            String extras = i % 3 == 0
                    ? ", \"add_options\": {\"level\": {\"urgent\": \"needs it now\"}}"
                    : i % 3 == 1 ? ", \"questions\": {\"legal\": {\"type\": \"noul\"}}" : "";
            HttpReply decided = http.post(
                    D,
                    "{\"template\": \"stats-eq\", \"variables\": {\"note\": \"case " + i
                            + "\", \"teams\": [\"billing\", \"tech\"]}" + extras + "}");
            assertThat(decided.status()).as(decided.body()).isEqualTo(200);
            ids.add(decided.json().path("id").asText());
            if (i == 5) {
                http.put("/v1/studio/templates/stats-eq", template.replace("\"high\"]", "\"high\", \"max\"]"));
            }
        }
        http.post(
                D + "/" + ids.get(0) + "/feedback",
                "{\"expected\": {\"days\": 2, \"team\": \"tech\"}, " + "\"rating\": 1}");
        http.post(
                D + "/" + ids.get(1) + "/feedback",
                "{\"expected\": {\"tags\": [\"vip\"], \"level\": " + "\"high\"}, \"rating\": null}");
        http.post(D + "/" + ids.get(3) + "/feedback", "{\"expected\": {\"level\": \"urgent\"}, \"rating\": -1}");
        http.delete(D + "/" + ids.get(4));
        JsonNode bulk = http.post(
                        D + "/delete", "{\"filter\": {\"template\": \"stats-eq@1\", " + "\"answer.days\": \"10\"}}")
                .json();
        assertThat(bulk.path("deleted").asInt()).as(bulk.toString()).isPositive();
        String background = http.post(
                        D,
                        "{\"template\": \"stats-eq\", \"background\": true, \"variables\": "
                                + "{\"note\": \"later\", \"teams\": [\"a\", \"b\"]}}")
                .json()
                .path("id")
                .asText();
        assertThat(http.get(D + "/" + background + "?wait=30")
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("completed");
        for (String query : List.of(
                "",
                "?group_by=version",
                "?group_by=version&include_extended=true",
                "?include_extended=true",
                "?group_by=version&version=1")) {
            JsonNode fast =
                    http.get("/v1/studio/templates/stats-eq/stats" + query).json();
            JsonNode everyRecord = http.get("/v1/studio/templates/stats-eq/stats"
                            + (query.isEmpty() ? "?" : query + "&") + "created_after=0")
                    .json();
            assertThat(fast).as(query).isEqualTo(everyRecord);
            assertThat(fast.at("/groups/0/count").asInt()).as(query).isPositive();
        }
    }

    @Test
    void statsCountDistributionsAccuracyAndWhatIfsPerGroup() {
        String template = """
                {"id": "stats-t", "model": "hash-decider", "questions": {"ok": {"type": "noul"},
                 "kind": {"type": "choice", "criteria": ["a", "b", "c"]}}}""";
        http.post("/v1/studio/templates", template);
        var first = new ArrayList<JsonNode>();
        for (int i = 0; i < 4; i++) {
            first.add(http.post(D, "{\"template\": \"stats-t\", \"state\": \"case " + i + "\"}")
                    .json());
        }
        http.put("/v1/studio/templates/stats-t", template.replace("[\"a\", \"b\", \"c\"]", "[\"a\", \"b\"]"));
        for (int i = 0; i < 2; i++) {
            http.post(
                    D,
                    "{\"template\": \"stats-t\", \"state\": \"later " + i + "\", \"questions\": {\"extra\": "
                            + "{\"type\": \"noul\"}}}");
        }
        JsonNode labelled = first.getFirst();
        http.post(
                D + "/" + labelled.path("id").asText() + "/feedback",
                "{\"expected\": {\"kind\": \""
                        + labelled.at("/answers/kind/decision").asText() + "\"}, \"rating\": null}");

        JsonNode stats =
                http.get("/v1/studio/templates/stats-t/stats?group_by=version").json();
        assertThat(stats.path("object").asText()).isEqualTo("decision.stats");
        JsonNode v1 = stats.at("/groups/0");
        JsonNode v2 = stats.at("/groups/1");
        assertThat(v1.path("key").toString()).isEqualTo("{\"version\":1}");
        assertThat(v1.path("count").asInt()).isEqualTo(4);
        assertThat(v2.path("count").asInt()).isEqualTo(2);
        assertThat(v1.at("/questions/kind/runs").asInt()).isEqualTo(4);
        double shares = 0;
        for (JsonNode share : v1.at("/questions/kind/distribution")) {
            shares += share.asDouble();
        }
        assertThat(shares).isBetween(0.999, 1.001);
        assertThat(v1.at("/questions/kind/labelled").asInt()).isEqualTo(1);
        assertThat(v1.at("/questions/kind/accuracy").asDouble()).isEqualTo(1.0);
        assertThat(v1.at("/questions/ok/accuracy").isNull()).isTrue();
        assertThat(v2.path("questions").has("extra"))
                .as("extra questions are left out by default")
                .isFalse();
        assertThat(v1.at("/questions/kind/comparability").asText()).isEqualTo("reference");
        assertThat(v2.at("/questions/kind/comparability").asText()).isEqualTo("options_changed");
        assertThat(v2.at("/questions/ok/comparability").asText()).isEqualTo("identical");
        assertThat(http.get("/v1/studio/templates/stats-t/stats?group_by=version&include_extended=true")
                        .json()
                        .at("/groups/1/questions/extra/runs")
                        .asInt())
                .isEqualTo(2);
        assertThat(v1.at("/latency_ms/p50").asDouble()).isPositive();

        JsonNode lenient = http.get("/v1/studio/templates/stats-t/stats?what_if.act_threshold=0.01")
                .json();
        assertThat(lenient.at("/groups/0/what_if/act_rate").asDouble()).isEqualTo(1.0);
        assertThat(lenient.at("/groups/0/what_if/labelled_acting").asInt()).isEqualTo(1);
        assertThat(lenient.at("/groups/0/what_if/accuracy_when_acting").asDouble())
                .isEqualTo(1.0);
        JsonNode strict = http.get("/v1/studio/templates/stats-t/stats?what_if.act_threshold=1&what_if.temperature=20")
                .json();
        assertThat(strict.at("/groups/0/what_if/act_rate").asDouble()).isZero();
        assertThat(strict.at("/what_if/temperature").asDouble()).isEqualTo(20);

        JsonNode overall = http.get(D + "/stats?template=stats-t&group_by=model,status,day")
                .json();
        assertThat(overall.at("/groups/0/key/model").asText()).isEqualTo("hash-decider");
        assertThat(overall.at("/groups/0/key/day").asText()).matches("\\d{4}-\\d{2}-\\d{2}");
        assertThat(overall.at("/groups/0/count").asInt()).isEqualTo(6);

        http.get(D + "/stats?group_by=colour").assertError(400, "invalid_parameter", "group_by");
        http.get(D + "/stats?what_if.temperature=hot").assertError(400, "invalid_parameter", "what_if.temperature");
        JsonNode tooHot = http.get(D + "/stats?what_if.temperature=21")
                .assertError(400, "invalid_parameter", "what_if.temperature");
        assertThat(tooHot.path("message").asText()).contains("at most 20");
        assertThat(http.get(D + "/stats?what_if.temperature=20").status()).isEqualTo(200);
        http.get(D + "/stats?what_if.act_threshold=2").assertError(400, "invalid_parameter", "what_if.act_threshold");
        assertThat(http.get("/v1/studio/templates/nope/stats")
                        .json()
                        .path("groups")
                        .size())
                .isZero();
    }

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

    @Test
    void twoVersionsAreComparedOnTheSameInputs() {
        String v1 = """
                {"id": "compare-t", "model": "hash-decider",
                 "variables": {"message": {"type": "string"}}, "state": "{{message}}",
                 "questions": {"urgent": {"type": "noul", "instructions": "Is it urgent?"},
                               "team": {"type": "choice", "criteria": ["a", "b"]}}}""";
        http.post("/v1/studio/templates", v1);
        for (int i = 0; i < 3; i++) {
            http.post(D, "{\"template\": \"compare-t\", \"variables\": {\"message\": \"case " + i + "\"}}");
        }
        http.put(
                "/v1/studio/templates/compare-t",
                v1.replace("[\"a\", \"b\"]", "[\"a\", \"b\", \"c\"]")
                        .replace("\"team\"", "\"team\"")
                        .replace("}}}", "}, \"new_one\": {\"type\": \"noul\"}}}"));
        for (int i = 0; i < 3; i++) {
            http.post(D, "{\"template\": \"compare-t\", \"variables\": {\"message\": \"case " + i + "\"}}");
        }
        JsonNode comparison = http.get("/v1/studio/templates/compare-t/compare").json();
        assertThat(comparison.path("object").asText()).isEqualTo("template.comparison");
        assertThat(comparison.path("versions").toString()).isEqualTo("[1,2]");
        assertThat(comparison.path("paired_by").asText()).isEqualTo("variables");
        JsonNode urgent = comparison.at("/questions/urgent");
        assertThat(urgent.path("comparability").asText()).isEqualTo("identical");
        assertThat(urgent.at("/paired/n").asInt()).isEqualTo(3);
        assertThat(urgent.at("/paired/agreement").asDouble())
                .as("same input, same question")
                .isEqualTo(1.0);
        assertThat(urgent.at("/by_version/1/n").asInt()).isEqualTo(3);
        assertThat(comparison.at("/questions/team/comparability").asText()).isEqualTo("options_changed");
        assertThat(comparison.at("/questions/new_one/comparability").asText()).isEqualTo("added");
        assertThat(comparison.at("/questions/new_one").has("paired")).isFalse();
        assertThat(comparison.at("/operational/2/n").asInt()).isEqualTo(3);
        assertThat(http.get("/v1/studio/templates/compare-t/compare?versions=2,1")
                        .json()
                        .path("versions")
                        .toString())
                .isEqualTo("[2,1]");
        http.get("/v1/studio/templates/compare-t/compare?versions=1").assertError(400, "invalid_parameter", "versions");
        http.get("/v1/studio/templates/compare-t/compare?versions=1,1")
                .assertError(400, "invalid_parameter", "versions");
        http.get("/v1/studio/templates/compare-t/compare?versions=1,7")
                .assertError(404, "template_version_not_found", "version");
        http.get("/v1/studio/templates/plain/compare").assertError(400, "invalid_parameter", "versions");
    }

    @Test
    void starterTemplatesAreCallable() {
        HttpReply reply = http.post(
                D,
                "{\"template\": \"builtin/support@1\", \"model\": \"hash-decider\", "
                        + "\"state\": \"I was charged twice and I am thinking about cancelling.\"}");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().at("/template/id").asText()).isEqualTo("builtin/support");
        assertThat(reply.json().path("answers").size()).isGreaterThanOrEqualTo(2);
    }

    @Test
    void anArchivedTemplateStillDecidesWithAWarning() {
        http.post(
                "/v1/studio/templates",
                "{\"id\": \"old\", \"model\": \"hash-decider\", " + "\"questions\": {\"ok\": {\"type\": \"noul\"}}}");
        http.action("/v1/studio/templates/old/archive");
        JsonNode decision =
                http.post(D, "{\"template\": \"old\", \"state\": \"x\"}").json();
        assertThat(decision.path("status").asText()).isEqualTo("completed");
        assertThat(decision.path("warnings").toString()).contains("template_archived");
    }

    @Test
    void decisionsArePatchedOnlyInMetadataAndPin() {
        String id = http.post(
                        D,
                        adHoc("patch me").replace("{\"model\"", "{\"metadata\": {\"ticket\": \"T-1\"}, " + "\"model\""))
                .json()
                .path("id")
                .asText();
        JsonNode patched = http.patch(
                        D + "/" + id, "{\"metadata\": {\"ticket\": null, \"queue\": \"eu\"}, " + "\"pinned\": true}")
                .json();
        assertThat(patched.path("metadata").toString()).isEqualTo("{\"queue\":\"eu\"}");
        assertThat(patched.path("pinned").asBoolean()).isTrue();
        http.patch(D + "/" + id, "{\"answers\": {}}").assertError(400, "read_only_field", "answers");
        http.patch(D + "/" + id, "{\"pinned\": \"yes\"}").assertError(400, "invalid_field", "pinned");
        http.patch(D + "/" + id, "{\"metadata\": {\"k\": 5}}").assertError(400, "invalid_metadata", "metadata.k");
        http.patch(D + "/nope", "{\"pinned\": true}").assertError(404, "decision_not_found", "decision_id");
        assertThat(http.delete(D + "/" + id).json().path("deleted").asBoolean()).isTrue();
        http.get(D + "/" + id).assertError(404, "decision_not_found", "decision_id");
        http.delete(D + "/" + id).assertError(404, "decision_not_found", "decision_id");
    }

    @ParameterizedTest
    @ValueSource(strings = {"soon", "61", "1e20", "-1", "NaN", "Infinity"})
    void waitIsZeroToSixtySeconds(String wait) {
        String id = http.post(D, adHoc("read back")).json().path("id").asText();
        http.get(D + "/" + id + "?wait=" + wait).assertError(400, "invalid_parameter", "wait");
    }

    @Test
    void readBackParametersAreChecked() {
        String id = http.post(D, adHoc("read back")).json().path("id").asText();
        http.get(D + "/" + id + "?format=xml").assertError(400, "invalid_parameter", "format");
        JsonNode input = http.get(D + "/" + id + "/input").json();
        assertThat(input.path("object").asText()).isEqualTo("decision.input");
        assertThat(input.path("state").asText()).isEqualTo("read back");
    }

    @Test
    void backgroundDecisionsAreQueuedThenReadWithWait() {
        HttpReply queued =
                http.post(D, adHoc("in the background").replace("{\"model\"", "{\"background\": true, " + "\"model\""));
        assertThat(queued.status()).isEqualTo(200);
        assertThat(queued.json().path("status").asText()).isEqualTo("queued");
        String id = queued.json().path("id").asText();
        assertThat(queued.header("x-studio-decision-id")).isEqualTo(id);
        JsonNode done = http.get(D + "/" + id + "?wait=20").json();
        assertThat(done.path("status").asText()).isEqualTo("completed");
        assertThat(done.path("answers").size()).isEqualTo(6);
        assertThat(done.path("warnings").size()).isZero();
        http.action(D + "/" + id + "/cancel").assertError(409, "decision_finished", null);
        http.get(D + "/" + id + "?format=decide").json();
    }

    @Test
    void rerunRunsTheStoredInputAgain() {
        JsonNode original = http.post(D, """
                {"template": "triage", "variables": {"message": "Refund please", "email": "ann@example.com"},
                 "settings": {"act_threshold": 0.6}, "metadata": {"ticket": "T-9"}}""").json();
        String id = original.path("id").asText();
        http.action(D + "/" + id + "/rerun").assertError(409, "input_unavailable", "variables.email");
        HttpReply rerun = http.post(D + "/" + id + "/rerun", "{\"variables\": {\"email\": \"ann@example.com\"}}");
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(200);
        JsonNode again = rerun.json();
        assertThat(again.path("rerun_of").asText()).isEqualTo(id);
        assertThat(again.path("answers")).isEqualTo(original.path("answers"));
        assertThat(again.at("/settings/act_threshold").asDouble()).isEqualTo(0.6);
        assertThat(again.at("/source/surface").asText()).isEqualTo("rerun");
        assertThat(again.path("metadata").toString()).isEqualTo("{\"ticket\":\"T-9\"}");
        http.post(D + "/" + id + "/rerun", "{\"answers\": {}}").assertError(400, "invalid_field", "answers");
        http.action(D + "/dec_nope/rerun").assertError(404, "decision_not_found", "decision_id");

        String adHocId = http.post(D, adHoc("rerun me")).json().path("id").asText();
        JsonNode small = http.post(D + "/" + adHocId + "/rerun", "{\"model\": \"hash-small\"}")
                .json();
        assertThat(small.path("error").path("code").asText()).isEqualTo("model_incompatible");
    }

    @Test
    void aPreviewShowsWhatTheModelWouldReadWithoutRunningIt() {
        JsonNode preview = http.post(D + "/preview", """
                {"template": "triage", "variables": {"message": "hi", "email": "a@b.c"},
                 "settings": {"questions": {"team": {"temperature": 2}}}}""").json();
        assertThat(preview.path("object").asText()).isEqualTo("decision.preview");
        assertThat(preview.path("state").asText()).contains("[redacted:email]").doesNotContain("a@b.c");
        assertThat(preview.at("/decide_request/settings/temperature").asDouble())
                .isEqualTo(1.3);
        var codes = new ArrayList<String>();
        preview.path("warnings")
                .forEach(w -> codes.add(
                        w.path("code").asText() + "@" + w.path("param").asText()));
        assertThat(codes).containsExactly("per_question_settings_not_portable@settings.questions.team.temperature");
        JsonNode created = http.post(D, """
                {"template": "triage", "variables": {"message": "hi", "email": "a@b.c"},
                 "settings": {"questions": {"team": {"temperature": 2}}}}""").json();
        assertThat(preview.path("settings")).isEqualTo(created.path("settings"));
        assertThat(preview.path("template")).isEqualTo(created.path("template"));
        http.post(D + "/preview", "{\"template\": \"triage\"}")
                .assertError(400, "missing_variable", "variables.message");
    }

    @Test
    void anIdempotencyKeyDecidesOnce() {
        String body = adHoc("idempotent");
        HttpReply first = http.post(D, body, "Idempotency-Key", "decide-1");
        HttpReply again = http.post(D, body, "Idempotency-Key", "decide-1");
        assertThat(again.json().path("id")).isEqualTo(first.json().path("id"));
        assertThat(again.header("idempotent-replayed")).isEqualTo("true");
        http.post(D, adHoc("another"), "Idempotency-Key", "decide-1")
                .assertError(409, "idempotency_key_reused", "Idempotency-Key");
        String id = first.json().path("id").asText();
        HttpReply rerun = http.action(D + "/" + id + "/rerun", "Idempotency-Key", "rerun-1");
        HttpReply rerunAgain = http.action(D + "/" + id + "/rerun", "Idempotency-Key", "rerun-1");
        assertThat(rerunAgain.json().path("id")).isEqualTo(rerun.json().path("id"));
    }

    @Test
    void theWireFormatAnswersTheSameBytesWhetherOrNotItIsStored() {
        String body = "{\"model\": \"hash-decider\", \"state\": \"wire\", \"questions\": " + ALL_TYPES + "}";
        HttpReply stored = http.post("/v1/decide", body);
        HttpReply unstored = http.post("/v1/decide", body.replace("{\"model\"", "{\"store\": false, \"model\""));
        assertThat(unstored.body()).isEqualTo(stored.body());
        assertThat(stored.json().fieldNames()).toIterable().containsExactly("model", "answers", "usage");
        assertThat(stored.json().at("/answers/team").has("act")).isFalse();
        assertThat(unstored.header("x-studio-stored")).isEqualTo("none");
        String id = stored.header("x-studio-decision-id");
        JsonNode recorded = http.get(D + "/" + id).json();
        assertThat(recorded.at("/source/surface").asText()).isEqualTo("wire");
        assertThat(recorded.at("/answers/team/act").isBoolean()).isTrue();

        HttpReply lenient = http.post(
                "/v1/decide",
                body.replace("{\"model\"", "{\"store\": \"forever\", \"metadata\": {\"a\": 1}, \"model\""));
        assertThat(lenient.status()).isEqualTo(200);
        assertThat(lenient.header("x-studio-warning")).isEqualTo("store_ignored,metadata_ignored");
        assertThat(lenient.body()).isEqualTo(stored.body());

        HttpReply headers = http.post(
                "/v1/decide", body, "X-Studio-Store", "answers_only", "X-Studio-Metadata", "team=eu; ticket=T%201");
        assertThat(headers.header("x-studio-stored")).isEqualTo("answers_only");
        assertThat(http.get(D + "/" + headers.header("x-studio-decision-id"))
                        .json()
                        .path("metadata")
                        .toString())
                .isEqualTo("{\"team\":\"eu\",\"ticket\":\"T 1\"}");
        assertThat(http.post("/v1/decide", body, "X-Studio-Metadata", "no pairs here")
                        .header("x-studio-warning"))
                .isEqualTo("metadata_ignored");

        http.post("/v1/decide", "{\"state\": \"x\", \"questions\": {}}").assertError(400, "missing_field", "model");
        http.post(
                        "/v1/decide",
                        "{\"model\": \"nope\", \"state\": \"x\", \"questions\": {\"q\": {\"type\": " + "\"noul\"}}}")
                .assertError(404, "model_not_found", "model");
    }

    @Test
    void theWireFormatIsCreditedToATemplateOnlyWhenItAsksThatTemplatesQuestions() {
        String questions = "{\"ok\": {\"type\": \"noul\"}, \"kind\": {\"type\": \"choice\", \"criteria\": "
                + "[\"a\", \"b\"]}, \"extra\": {\"type\": \"noul\"}}";
        String body = "{\"model\": \"hash-decider\", \"state\": \"credited\", \"questions\": " + questions + "}";
        HttpReply attributed = http.post("/v1/decide", body, "X-Studio-Template", "plain@1");
        assertThat(attributed.header("x-studio-template-status")).isEqualTo("attributed");
        JsonNode recorded =
                http.get(D + "/" + attributed.header("x-studio-decision-id")).json();
        assertThat(recorded.at("/template/id").asText()).isEqualTo("plain");
        assertThat(recorded.at("/template/attribution").asText()).isEqualTo("header");
        assertThat(recorded.at("/answers/ok/origin").asText()).isEqualTo("template");
        assertThat(recorded.at("/answers/extra/origin").asText()).isEqualTo("extra");

        HttpReply mismatch =
                http.post("/v1/decide", body.replace("[\"a\", \"b\"]", "[\"a\", \"c\"]"), "X-Studio-Template", "plain");
        assertThat(mismatch.header("x-studio-template-status")).isEqualTo("mismatch");
        assertThat(mismatch.header("x-studio-warning")).isEqualTo("template_mismatch");
        assertThat(http.get(D + "/" + mismatch.header("x-studio-decision-id"))
                        .json()
                        .path("template")
                        .isNull())
                .isTrue();
        assertThat(attributed.json().path("answers"))
                .isEqualTo(http.post("/v1/decide", body).json().path("answers"));
    }

    @Test
    void aDeletedTemplateKeepsItsIdReservedWhileItsDecisionsRemain() {
        String template =
                "{\"id\": \"%s\", \"model\": \"hash-decider\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}";
        http.post("/v1/studio/templates", template.formatted("gone"));
        String decided = http.post(D, "{\"template\": \"gone\", \"state\": \"x\"}")
                .json()
                .path("id")
                .asText();
        JsonNode deleted = http.delete("/v1/studio/templates/gone?confirm=gone").json();
        assertThat(deleted.path("versions_kept").asInt()).isEqualTo(1);
        assertThat(deleted.path("decisions_deleted").asInt()).isZero();
        assertThat(http.get(D + "/" + decided).json().at("/template/id").asText())
                .isEqualTo("gone");
        http.post("/v1/studio/templates", template.formatted("gone")).assertError(409, "template_id_reserved", "id");
        http.put("/v1/studio/templates/gone", template.formatted("gone"))
                .assertError(409, "template_id_reserved", "id");
        http.post(D, "{\"template\": \"gone\", \"state\": \"x\"}").assertError(404, "template_not_found", "template");

        http.post("/v1/studio/templates", template.formatted("purged"));
        String purged = http.post(D, "{\"template\": \"purged\", \"state\": \"x\"}")
                .json()
                .path("id")
                .asText();
        JsonNode withHistory = http.delete("/v1/studio/templates/purged?confirm=purged&history=delete")
                .json();
        assertThat(withHistory.path("decisions_deleted").asInt()).isEqualTo(1);
        http.get(D + "/" + purged).assertError(404, "decision_not_found", "decision_id");
        assertThat(http.post("/v1/studio/templates", template.formatted("purged"))
                        .status())
                .isEqualTo(201);

        http.delete(D + "/" + decided);
        assertThat(http.post("/v1/studio/templates", template.formatted("gone")).status())
                .as("the id is free once no decision names it")
                .isEqualTo(201);
    }

    @Test
    void questionsWithOneOptionAreAnsweredWithoutDoubt() {
        JsonNode decision = http.post(
                        D,
                        "{\"model\": \"hash-decider\", \"state\": \"x\", \"questions\": "
                                + "{\"only\": {\"type\": \"choice\", \"criteria\": [\"yes\"]}}}")
                .json();
        assertThat(decision.at("/answers/only/probabilities/yes").asDouble()).isEqualTo(1.0);
        assertThat(decision.at("/answers/only/act").asBoolean()).isTrue();
        assertThat(decision.path("act").asBoolean()).isTrue();
        assertThat(decision.path("needs_review").size()).isZero();
    }
}
