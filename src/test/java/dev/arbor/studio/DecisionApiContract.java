package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecidedCodec;
import dev.arbor.testing.HttpReply;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Decisions over HTTP on the deterministic hash model: making, reading back, rerunning, previews, the wire format; run once on SQLite and once on PostgreSQL. */
abstract class DecisionApiContract extends StudioApiContract {
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
    void streamFalseIsTheAnswerAsOneReplyAndStreamTrueIsRefused() {
        String state = "Stream or not";
        HttpReply plain = http.post(D, adHoc(state).replaceFirst("\\{", "{\"stream\": false, "));
        assertThat(plain.status()).as(plain.body()).isEqualTo(200);
        assertThat(plain.json().path("status").asText()).isEqualTo("completed");
        http.post(D, adHoc(state).replaceFirst("\\{", "{\"stream\": true, "))
                .assertError(400, "invalid_field", "stream");
    }

    @Test
    void everyProblemOfTheBodyIsReportedAtOnce() {
        JsonNode error = http.post(D, """
                {"template": 5, "stream": true, "act_threshold": 1.5, "store": "forever", "include": ["secrets"],
                 "on_store_error": "panic", "background": "yes", "media": {},
                 "metadata": {"a": 1}}""").assertError(400, "invalid_reference", "template");
        var codes = problems(error.path("details"));
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
        var codes = problems(error.path("details"));
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
        var codes = problems(error.path("details"));
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
    }

    /** Each row: what a caller adds to a decision on {@code triage}, and the 400 it gets. */
    @ParameterizedTest(name = "{1} {2}")
    @CsvSource(delimiter = '|', textBlock = """
            "skip": ["churn"]                                                | skip_not_allowed         | skip[0]
            "skip": ["nope"]                                                 | unknown_question         | skip[0]
            "add_options": {"churn": ["maybe"]}                              | options_not_extensible   | add_options.churn
            "add_options": {"urgency": ["mid"]}                              | options_not_extensible   | add_options.urgency
            "add_options": {"nope": ["x"]}                                   | unknown_question         | add_options.nope
            "add_options": {"team": ["billing"]}                             | option_conflict          | add_options.team.billing
            "add_options": {"eta": [3]}                                      | option_conflict          | add_options.eta[0]
            "questions": {"churn": {"type": "noul"}}                         | question_conflict        | questions.churn
            "questions": {"a": {"type": "noul"}, "b": {"type": "noul"}}      | too_many_extra_questions | questions
            "questions": {"a": {"type": "maybe"}}                            | invalid_field            | questions.a.type
            "settings": {"questions": {"nope": {"temperature": 2}}}          | unknown_question         | settings.questions.nope
            "settings": {"temperature": 0}                                   | invalid_field            | settings.temperature
            "extensions": {"skip": ["nope"]}                                 | unknown_question         | extensions.skip[0]
            """)
    void extensionsOutsideTheTemplatesRulesAreRefused(String extension, String code, String param) {
        http.post(D, "{\"template\": \"triage\", \"variables\": {\"message\": \"hi\"}, " + extension + "}")
                .assertError(400, code, param);
    }

    /** Each row: a decision extending a template that allows no extensions, or no template at all. */
    @ParameterizedTest(name = "{1} {2}")
    @CsvSource(delimiter = '|', textBlock = """
            {"template": "plain", "state": "x", "questions": {"a": {"type": "noul"}}}             | extension_not_allowed | questions
            {"template": "plain", "state": "x", "add_options": {"kind": ["c"]}}                   | extension_not_allowed | add_options.kind
            {"state": "x", "questions": {"a": {"type": "noul"}}, "skip": ["a"]}                   | requires_template     | skip
            {"state": "x", "questions": {"a": {"type": "noul"}}, "add_options": {"a": [1]}}       | requires_template     | add_options
            """)
    void extensionsNeedATemplateThatAllowsThem(String body, String code, String param) {
        http.post(D, body).assertError(400, code, param);
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
    void aDecisionWarnsOfItsQuestionsWhoseOptionsSayNothingAndOfNoOther() {
        JsonNode decision = http.post(D, """
                {"model": "hash-decider", "state": "Our exports fail since Monday.",
                 "questions": {"bare": {"type": "noul", "instructions": "Is this urgent?"},
                               "described": {"type": "noul", "instructions": "Is this urgent?",
                                             "criteria": {"true": "An outage or a deadline today",
                                                          "false": "Can wait until tomorrow"}},
                               "team": {"type": "choice", "criteria": {"billing": "charges", "tech": "errors"}}}}""").json();

        assertThat(decision.path("status").asText()).isEqualTo("completed");
        assertThat(problems(decision.path("warnings"))).containsExactly("options_undescribed@questions.bare");
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
        // its yes/no and choice questions describe no option
        assertThat(done.path("warnings").findValuesAsText("code")).containsOnly("options_undescribed");
        http.action(D + "/" + id + "/cancel").assertError(409, "decision_finished", null);
        http.get(D + "/" + id + "?format=decide").json();
    }

    /**
     * The test model reads the situation alone, as the bundled embedding model does (its options' embeddings are
     * kept), so the preview and the queued answer must count what it counts, not the questions' text around it.
     */
    @Test
    void thePreviewTheQueuedAnswerAndTheAnswerCountTheSameInputTokens() {
        String state = "A situation of about sixteen tokens, read by the model when it answers this decision.";
        String body = adHoc(state);
        int previewed =
                http.post(D + "/preview", body).json().at("/usage/input_tokens").asInt();
        JsonNode queued = http.post(D, body.replace("{\"model\"", "{\"background\": true, \"model\""))
                .json();
        JsonNode done =
                http.get(D + "/" + queued.path("id").asText() + "?wait=20").json();
        assertThat(done.path("status").asText()).isEqualTo("completed");
        assertThat(previewed).isEqualTo(state.length() / 4);
        assertThat(queued.at("/usage/input_tokens").asInt()).isEqualTo(previewed);
        assertThat(done.at("/usage/input_tokens").asInt()).isEqualTo(previewed);
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
        var codes = problems(preview.path("warnings"));
        assertThat(codes)
                .contains("per_question_settings_not_portable@settings.questions.team.temperature")
                .allMatch(code -> code.startsWith("per_question_settings_not_portable@")
                        || code.startsWith("options_undescribed@"));
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
        // ALL_TYPES describes none of its yes/no and choice options
        assertThat(lenient.header("x-studio-warning")).isEqualTo("store_ignored,metadata_ignored,options_undescribed");
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
                .isEqualTo("metadata_ignored,options_undescribed");

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
        assertThat(mismatch.header("x-studio-warning")).isEqualTo("template_mismatch,options_undescribed");
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

    /** History's {@code body} column of a decision, as the database holds it. */
    String storedBody(String id) {
        String url = started.getOrDefault(
                "ARBOR_DATABASE_URL", "jdbc:sqlite:" + server.dataDir().resolve("arbor.db"));
        try (Connection connection = DriverManager.getConnection(url);
                PreparedStatement select =
                        connection.prepareStatement("SELECT body FROM studio_decisions WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet row = select.executeQuery()) {
                assertThat(row.next()).as("decision %s is in history", id).isTrue();
                return row.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The column read by the codec and written again, byte for byte. */
    static String throughTheCodec(String stored) {
        return Json.writeString(DecidedCodec.write(DecidedCodec.read(Json.read(stored))));
    }

    @Test
    void historyKeepsTheAnswerOfEveryQuestionTypeAsTheCodecWritesAndReadsIt() {
        String id = http.post(D, adHoc("Billed twice, typed")).json().path("id").asText();
        String stored = storedBody(id);
        assertThat(throughTheCodec(stored)).isEqualTo(stored);
        Decided decided = DecidedCodec.read(Json.read(stored));
        assertThat(decided.answered().orElseThrow().answers().values())
                .extracting(answer -> answer.getClass().getSimpleName())
                .containsExactly("Choice", "YesNo", "Score", "Multi", "Rank", "Estimate");
        assertThat(decided.answered().orElseThrow().raw())
                .containsOnlyKeys("team", "urgent", "level", "tags", "order", "days");
    }

    @Test
    void aTemplatedDecisionWithExtensionsAndItsOwnSettingsReadsBackUnchanged() {
        HttpReply reply = http.post(D, """
                {"template": "triage", "variables": {"message": "Refund please", "n": 3},
                 "add_options": {"team": {"sales": "Buying more"}, "eta": [7]}, "skip": ["urgency"],
                 "questions": {"angry": {"type": "noul"}},
                 "settings": {"act_threshold": 0.6, "questions": {"team": {"temperature": 2}}}}""");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        String stored = storedBody(reply.json().path("id").asText());
        assertThat(throughTheCodec(stored)).isEqualTo(stored);
        Decided decided = DecidedCodec.read(Json.read(stored));
        assertThat(decided.extensions().skipped()).containsExactly("urgency");
        assertThat(decided.settings().of("team", "temperature")).isEqualTo(2.0);
        assertThat(decided.settings().sources()).containsEntry("act_threshold", "request");
    }

    @Test
    void aRerunIsKeptAsTheCodecWritesItAndNamesWhatItRan() {
        String id = http.post(D, adHoc("rerun typed")).json().path("id").asText();
        HttpReply rerun = http.action(D + "/" + id + "/rerun");
        assertThat(rerun.status()).as(rerun.body()).isEqualTo(200);
        String stored = storedBody(rerun.json().path("id").asText());
        assertThat(throughTheCodec(stored)).isEqualTo(stored);
        Decided decided = DecidedCodec.read(Json.read(stored));
        assertThat(decided.rerunOf()).contains(id);
        assertThat(decided.source().surface()).isEqualTo("rerun");
    }
}
