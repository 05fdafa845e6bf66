package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import org.junit.jupiter.api.Test;

/** The template life cycle over HTTP; run once on SQLite and once on PostgreSQL. */
abstract class TemplateApiContract extends ServerContract {
    private static final String T = "/v1/studio/templates";

    static String triage(String id, String options) {
        return """
                {"id": "%s", "name": "Support triage",
                 "variables": {"message": {"type": "string", "max_length": 5000}},
                 "state": "Customer wrote: {{message}}",
                 "questions": {"team": {"type": "choice", "criteria": %s},
                               "urgent": {"type": "noul", "instructions": "Does this need an answer today?"}}}""".formatted(id, options);
    }

    @Test
    void createIsIdempotentForTheSameDefinitionAndRefusesAnother() {
        HttpReply created = http.post(T, triage("tri-1", "[\"billing\", \"tech\"]"));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.header("etag")).startsWith("\"1.");
        assertThat(created.header("location")).isEqualTo(T + "/tri-1");
        JsonNode body = created.json();
        assertThat(body.path("change").asText()).isEqualTo("created");
        assertThat(body.path("version").asInt()).isEqualTo(1);
        assertThat(body.path("content_hash").asText()).startsWith("sha256:");
        assertThat(body.at("/aliases/latest").asInt()).isEqualTo(1);
        assertThat(body.at("/questions/team/criteria").toString()).isEqualTo("{\"billing\":null,\"tech\":null}");

        HttpReply again = http.post(T, triage("tri-1", "{\"billing\": null, \"tech\": null}"));
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.json().path("change").asText()).isEqualTo("unchanged");

        http.post(T, triage("tri-1", "[\"billing\", \"tech\", \"sales\"]")).assertError(409, "template_exists", "id");
    }

    @Test
    void idsAreChecked() {
        http.post(T, triage("Bad Id", "[\"a\"]")).assertError(400, "invalid_field", "id");
        http.post(T, triage("builtin/mine", "[\"a\"]")).assertError(400, "invalid_field", "id");
        String noId = triage("x", "[\"a\"]").replace("\"id\": \"x\",", "");
        http.post(T, noId).assertError(400, "missing_field", "id");
    }

    @Test
    void saveErrorsComeAllAtOnce() {
        JsonNode error = http.post(T, """
                {"id": "broken", "variables": {"msg": {"type": "string"}}, "state": "{{mesage}}",
                 "questions": {"q": {"type": "choice", "criteria": ["{{msg}}"]}}, "metadata": {"k": 5}}""").assertError(400, "invalid_metadata", "metadata.k");
        assertThat(error.path("details").findValuesAsText("code"))
                .containsExactly("invalid_metadata", "undeclared_variable", "placeholder_not_allowed");
    }

    @Test
    void settingsRangesAndQuestionsAreReportedTogether() {
        JsonNode error = http.post(T, """
                {"id": "ranges", "settings": {"temperature": 50},
                 "questions": {"bad key": {"type": "noul"}, "q": {"type": "maybe"}}}""").assertError(400, "invalid_field", "questions[\"bad key\"]");
        assertThat(error.path("details").findValuesAsText("param"))
                .containsExactlyInAnyOrder("settings.temperature", "questions[\"bad key\"]", "questions.q.type");
    }

    @Test
    void aTemplateReadAgainAfterAnAliasChangeIsNotAnsweredFromTheCacheAndItsEtagServesIfMatch() {
        http.post(T, triage("tri-etag", "[\"billing\", \"tech\"]"));
        String before = http.get(T + "/tri-etag").header("etag");
        assertThat(http.get(T + "/tri-etag", "If-None-Match", before).status()).isEqualTo(304);

        http.put(T + "/tri-etag/aliases/stable", "{\"version\": 1}");
        HttpReply after = http.get(T + "/tri-etag", "If-None-Match", before);
        assertThat(after.status()).isEqualTo(200);
        assertThat(after.json().at("/aliases/stable").asInt()).isEqualTo(1);

        HttpReply v2 = http.put(T + "/tri-etag", triage("tri-etag", "[\"billing\"]"), "If-Match", after.header("etag"));
        assertThat(v2.json().path("version").asInt()).isEqualTo(2);
        http.put(T + "/tri-etag", triage("tri-etag", "[\"tech\"]"), "If-Match", after.header("etag"))
                .assertError(412, "version_conflict", "base_version");
    }

    @Test
    void putMakesVersionsOnlyForNewDefinitions() {
        http.post(T, triage("tri-2", "[\"billing\", \"tech\"]"));
        HttpReply v2 = http.put(T + "/tri-2", triage("tri-2", "[\"billing\", \"tech\", \"sales\"]"));
        assertThat(v2.status()).isEqualTo(200);
        assertThat(v2.header("etag")).startsWith("\"2.");
        assertThat(v2.json().path("change").asText()).isEqualTo("new_version");

        HttpReply same = http.put(T + "/tri-2", triage("tri-2", "[\"billing\", \"tech\", \"sales\"]"));
        assertThat(same.json().path("change").asText()).isEqualTo("unchanged");
        HttpReply renamed = http.put(
                T + "/tri-2",
                triage("tri-2", "[\"billing\", \"tech\", \"sales\"]").replace("Support triage", "Triage"));
        assertThat(renamed.json().path("change").asText()).isEqualTo("metadata_only");
        assertThat(renamed.json().path("version").asInt()).isEqualTo(2);

        JsonNode changes = http.get(T + "/tri-2/versions/2").json().path("changes");
        assertThat(changes.path("class").asText()).isEqualTo("extended");
        assertThat(changes.at("/questions/team/comparability").asText()).isEqualTo("options_changed");
        assertThat(changes.at("/questions/team/added_options/0").asText()).isEqualTo("sales");
        assertThat(changes.at("/questions/urgent/comparability").asText()).isEqualTo("identical");

        HttpReply created = http.put(T + "/tri-new", triage("tri-new", "[\"a\"]"));
        assertThat(created.status()).isEqualTo(201);
        http.put(T + "/tri-2", triage("other", "[\"a\"]")).assertError(400, "invalid_field", "id");
    }

    @Test
    void staleWritesAreRefused() {
        http.post(T, triage("tri-3", "[\"a\", \"b\"]"));
        http.put(T + "/tri-3", triage("tri-3", "[\"a\", \"b\", \"c\"]"), "If-Match", "\"1\"");
        JsonNode stale = http.put(T + "/tri-3", triage("tri-3", "[\"a\"]"), "If-Match", "\"1\"")
                .assertError(412, "version_conflict", "base_version");
        assertThat(stale.path("current_version").asInt()).isEqualTo(2);
        String withBase = triage("tri-3", "[\"a\"]").replaceFirst("\\{", "{\"base_version\": 1, ");
        http.put(T + "/tri-3", withBase).assertError(412, "version_conflict", "base_version");
        http.put(T + "/tri-3", triage("tri-3", "[\"a\"]"), "If-Match", "version two")
                .assertError(400, "invalid_parameter", "If-Match");
        assertThat(http.put(T + "/tri-3", triage("tri-3", "[\"a\"]"), "If-Match", "W/\"2\"")
                        .status())
                .isEqualTo(200);
    }

    @Test
    void patchMergesIntoTheLatestDefinition() {
        http.post(T, triage("tri-4", "{\"billing\": \"invoices\", \"tech\": \"bugs\"}"));
        HttpReply added =
                http.patch(T + "/tri-4", "{\"questions\": {\"team\": {\"criteria\": {\"legal\": \"contracts\"}}}}");
        assertThat(added.json().path("version").asInt()).isEqualTo(2);
        assertThat(added.json().at("/questions/team/criteria").toString())
                .isEqualTo("{\"billing\":\"invoices\",\"tech\":\"bugs\",\"legal\":\"contracts\"}");

        HttpReply removed = http.patch(T + "/tri-4", "{\"questions\": {\"urgent\": null}}");
        assertThat(removed.json().path("questions").has("urgent")).isFalse();
        assertThat(http.get(T + "/tri-4/versions/3").json().at("/changes/class").asText())
                .isEqualTo("breaking");

        HttpReply head = http.patch(T + "/tri-4", "{\"description\": \"Routes tickets\"}");
        assertThat(head.json().path("change").asText()).isEqualTo("metadata_only");
        assertThat(head.json().path("version").asInt()).isEqualTo(3);

        http.patch(T + "/tri-4", "{\"version\": 9}").assertError(400, "read_only_field", "version");
        http.patch(T + "/tri-4", "{\"archived\": true}").assertError(400, "read_only_field", "archived");
        http.patch(T + "/tri-4", "{\"questions\": {\"team\": {\"type\": \"dice\"}}}")
                .assertError(400, "invalid_field", "questions.team.type");
    }

    @Test
    void versionsAndAliases() {
        http.post(T, triage("tri-5", "[\"a\", \"b\"]"));
        http.put(T + "/tri-5", triage("tri-5", "[\"a\", \"b\", \"c\"]"));
        http.put(T + "/tri-5", triage("tri-5", "[\"a\", \"b\", \"c\", \"d\"]"));

        JsonNode list = http.get(T + "/tri-5/versions?limit=2").json();
        assertThat(list.path("data").findValuesAsText("version")).containsExactly("3", "2");
        assertThat(list.path("has_more").asBoolean()).isTrue();
        assertThat(http.get(T + "/tri-5/versions?after=2").json().path("data").findValuesAsText("version"))
                .containsExactly("1");

        HttpReply alias = http.put(T + "/tri-5/aliases/stable", "{\"version\": 2}");
        assertThat(alias.json().path("version").asInt()).isEqualTo(2);
        assertThat(alias.json().path("previous_version").isNull()).isTrue();
        assertThat(http.get(T + "/tri-5/versions/stable").json().path("version").asInt())
                .isEqualTo(2);
        assertThat(http.get(T + "/tri-5/versions/latest").json().path("version").asInt())
                .isEqualTo(3);
        assertThat(http.get(T + "/tri-5?version=stable")
                        .json()
                        .at("/questions/team/criteria")
                        .size())
                .isEqualTo(3);

        JsonNode missing = http.get(T + "/tri-5/versions/7").assertError(404, "template_version_not_found", "version");
        assertThat(missing.path("message").asText()).contains("1–3");
        JsonNode noAlias = http.get(T + "/tri-5/versions/beta").assertError(404, "alias_not_found", "version");
        assertThat(noAlias.path("message").asText()).contains("latest, stable");

        http.put(T + "/tri-5/aliases/latest", "{\"version\": 1}").assertError(400, "invalid_field", "alias");
        http.put(T + "/tri-5/aliases/Bad!", "{\"version\": 1}").assertError(400, "invalid_field", "alias");
        http.put(T + "/tri-5/aliases/old", "{\"version\": 9}")
                .assertError(404, "template_version_not_found", "version");
        http.put(T + "/tri-5/aliases/old", "{\"version\": \"1\"}").assertError(400, "invalid_field", "version");
        assertThat(http.delete(T + "/tri-5/aliases/stable")
                        .json()
                        .path("deleted")
                        .asBoolean())
                .isTrue();
        http.delete(T + "/tri-5/aliases/stable").assertError(404, "alias_not_found", "alias");
    }

    @Test
    void archivedTemplatesTakeNoNewVersions() {
        http.post(T, triage("tri-6", "[\"a\", \"b\"]"));
        assertThat(http.action(T + "/tri-6/archive").json().path("archived").asBoolean())
                .isTrue();
        http.put(T + "/tri-6", triage("tri-6", "[\"a\"]")).assertError(409, "template_archived", null);
        assertThat(http.get(T).json().path("data").findValuesAsText("id")).doesNotContain("tri-6");
        assertThat(http.get(T + "?include_archived=true").json().path("data").findValuesAsText("id"))
                .contains("tri-6");
        assertThat(http.get(T + "?archived=true").json().path("data").findValuesAsText("id"))
                .containsExactly("tri-6");
        assertThat(http.action(T + "/tri-6/unarchive").json().path("archived").asBoolean())
                .isFalse();
        assertThat(http.put(T + "/tri-6", triage("tri-6", "[\"a\"]"))
                        .json()
                        .path("version")
                        .asInt())
                .isEqualTo(2);
    }

    @Test
    void deleteNeedsConfirmation() {
        http.post(T, triage("tri-7", "[\"a\"]"));
        http.delete(T + "/tri-7").assertError(400, "confirmation_required", "confirm");
        http.delete(T + "/tri-7?confirm=tri-8").assertError(400, "confirmation_required", "confirm");
        http.delete(T + "/tri-7?confirm=tri-7&history=maybe").assertError(400, "invalid_parameter", "history");
        JsonNode deleted = http.delete(T + "/tri-7?confirm=tri-7").json();
        assertThat(deleted.path("object").asText()).isEqualTo("template.deleted");
        http.get(T + "/tri-7").assertError(404, "template_not_found", "template");
        assertThat(http.post(T, triage("tri-7", "[\"b\"]")).status()).isEqualTo(201);
    }

    @Test
    void listPagesNewestChangeFirst() {
        for (String id : new String[] {"page-a", "page-b", "page-c"}) {
            http.post(T, triage(id, "[\"x\"]"));
        }
        http.patch(T + "/page-a", "{\"description\": \"touched\"}");
        JsonNode first = http.get(T + "?q=page-&limit=2").json();
        assertThat(first.path("data").findValuesAsText("id")).containsExactly("page-a", "page-c");
        assertThat(first.path("data").get(0).at("/summary/questions").toString())
                .isEqualTo("[\"team\",\"urgent\"]");
        JsonNode second = http.get(
                        T + "?q=page-&limit=2&after=" + first.path("last_id").asText())
                .json();
        assertThat(second.path("data").findValuesAsText("id")).containsExactly("page-b");
        assertThat(second.path("has_more").asBoolean()).isFalse();
        http.get(T + "?after=nope").assertError(400, "invalid_parameter", "after");
        http.get(T + "?origin=alien").assertError(400, "invalid_parameter", "origin");
    }

    @Test
    void unknownTemplatesAndOversizedBodies() {
        http.get(T + "/ghost").assertError(404, "template_not_found", "template");
        http.get(T + "/ghost/versions/1").assertError(404, "template_not_found", "template");
        String big = triage("huge", "[\"a\"]")
                .replace("Support triage", "x".repeat(100))
                .replace("\"name\"", "\"description\": \"" + "d".repeat(300_000) + "\", \"name\"");
        http.post(T, big).assertError(413, "payload_too_large", null);
    }

    @Test
    void diffRestoreAndSchema() {
        http.post(T, triage("tri-8", "[\"a\", \"b\"]"));
        http.patch(T + "/tri-8", "{\"settings\": {\"act_threshold\": 0.85}}");
        JsonNode diff = http.get(T + "/tri-8/versions/2/diff").json();
        assertThat(diff.path("object").asText()).isEqualTo("template.diff");
        assertThat(diff.path("from").asInt()).isEqualTo(1);
        assertThat(diff.path("class").asText()).isEqualTo("settings_only");
        assertThat(diff.path("changes").toString())
                .contains("{\"op\":\"add\",\"path\":\"/settings/act_threshold\",\"value\":0.85}");
        http.get(T + "/tri-8/versions/1/diff").assertError(400, "invalid_parameter", "against");
        assertThat(http.get(T + "/tri-8/versions/1/diff?against=2")
                        .json()
                        .path("from")
                        .asInt())
                .isEqualTo(2);

        HttpReply restored = http.action(T + "/tri-8/versions/1/restore");
        assertThat(restored.json().path("version").asInt()).isEqualTo(3);
        assertThat(restored.json().path("note").asText()).isEqualTo("Restore version 1");
        assertThat(restored.json().path("content_hash").asText())
                .isEqualTo(http.get(T + "/tri-8/versions/1")
                        .json()
                        .path("content_hash")
                        .asText());
        assertThat(http.get(T + "/tri-8/versions/3").json().path("source").asText())
                .isEqualTo("restore");
        assertThat(http.action(T + "/tri-8/versions/3/restore")
                        .json()
                        .path("change")
                        .asText())
                .isEqualTo("unchanged");
        http.action(T + "/tri-8/versions/9/restore").assertError(404, "template_version_not_found", "version");

        JsonNode schema = http.get(T + "/tri-8/schema").json();
        assertThat(schema.path("title").asText()).isEqualTo("tri-8@3 variables");
        assertThat(schema.path("required").toString()).isEqualTo("[\"message\"]");
        assertThat(schema.at("/properties/message/maxLength").asInt()).isEqualTo(5000);
        assertThat(schema.path("additionalProperties").asBoolean()).isFalse();
    }

    @Test
    void starterTemplatesAreListedReadOnlyAndClonable() {
        JsonNode builtins = http.get(T + "?origin=builtin&limit=100").json().path("data");
        assertThat(builtins.size()).isGreaterThanOrEqualTo(20);
        assertThat(builtins.findValuesAsText("origin")).containsOnly("builtin");
        assertThat(builtins.findValuesAsText("id")).allMatch(id -> id.startsWith("builtin/"));

        JsonNode support = http.get(T + "/builtin/support").json();
        assertThat(support.path("origin").asText()).isEqualTo("builtin");
        assertThat(support.at("/questions/team/type").asText()).isEqualTo("choice");
        assertThat(support.at("/metadata/studio.group").asText()).isEqualTo("Support");
        assertThat(http.get(T + "/builtin/support/versions/1")
                        .json()
                        .path("created_by")
                        .asText())
                .isEqualTo("studio");

        http.put(T + "/builtin/support", "{\"questions\": {\"q\": {\"type\": \"noul\"}}}")
                .assertError(403, "template_read_only", null);
        http.put(T + "/builtin/brand-new", "{\"questions\": {\"q\": {\"type\": \"noul\"}}}")
                .assertError(403, "template_read_only", null);
        http.patch(T + "/builtin/support", "{\"description\": \"mine now\"}")
                .assertError(403, "template_read_only", null);
        http.delete(T + "/builtin/support?confirm=builtin/support").assertError(403, "template_read_only", null);
        http.action(T + "/builtin/support/archive").assertError(403, "template_read_only", null);
        http.put(T + "/builtin/support/aliases/stable", "{\"version\": 1}")
                .assertError(403, "template_read_only", null);
        http.post(T, triage("builtin", "[\"a\"]")).assertError(400, "invalid_field", "id");

        HttpReply clone = http.post(T, "{\"id\": \"my-support\", \"from\": {\"template\": \"builtin/support@1\"}}");
        assertThat(clone.status()).isEqualTo(201);
        assertThat(clone.json().path("origin").asText()).isEqualTo("user");
        assertThat(clone.json().path("content_hash").asText())
                .isEqualTo(support.path("content_hash").asText());
        assertThat(http.get(T + "/my-support/versions/1").json().path("source").asText())
                .isEqualTo("clone");

        HttpReply narrowed = http.post(
                T,
                "{\"id\": \"my-support-2\", \"from\": {\"template\": \"builtin/support\"},"
                        + " \"questions\": {\"urgent\": {\"type\": \"noul\"}}}");
        assertThat(narrowed.json().path("questions").size()).isEqualTo(1);

        http.post(T, "{\"id\": \"c3\", \"from\": \"builtin/support\"}")
                .assertError(400, "invalid_field", "from.template");
        http.post(T, "{\"id\": \"c3\", \"from\": {\"template\": \"nowhere@1\"}}")
                .assertError(404, "template_not_found", "from.template");
        http.post(T, "{\"id\": \"c3\", \"from\": {\"template\": \"builtin/support@9\"}}")
                .assertError(404, "template_version_not_found", "from.template");
    }

    @Test
    void inputLongerThanAModelReadsIsANoteNotAnIncompatibility() {
        http.post(T, triage("long-input", "[\"billing\", \"tech\"]"));
        JsonNode minilm = http.get(T + "/long-input/compatibility").json().path("models").findParents("model").stream()
                .filter(m -> m.path("model").asText().equals("minilm-decider"))
                .findFirst()
                .orElseThrow();
        assertThat(minilm.path("ok").asBoolean()).isTrue();
        assertThat(minilm.path("problems").size()).isZero();
        assertThat(minilm.path("notes").toString()).contains("1250 tokens; it reads 256");
    }

    @Test
    void aQuestionWhoseOptionsSayNothingIsWarnedAboutAtSave() {
        HttpReply created = http.post(T, """
                {"id": "undescribed", "state": "{{message}}", "variables": {"message": {"type": "string"}},
                 "questions": {"team": {"type": "choice", "criteria": ["billing", "tech"]},
                               "urgent": {"type": "noul", "instructions": "Does this need an answer today?"}}}""");

        assertThat(created.status()).isEqualTo(201);
        assertThat(StudioApiContract.problems(created.json().path("warnings")))
                .containsExactly("options_undescribed@questions.team", "options_undescribed@questions.urgent");
        assertThat(created.json().at("/warnings/1/message").asText())
                .contains("`urgent` is a yes/no question")
                .contains("{\"true\": \"what a yes looks like in the text\"");
    }

    @Test
    void aQuestionWhoseOptionsAreDescribedIsNotWarnedAbout() {
        HttpReply created = http.post(T, """
                {"id": "described", "state": "{{message}}", "variables": {"message": {"type": "string"}},
                 "questions": {"team": {"type": "choice", "criteria": {"billing": "charges", "tech": "errors"}},
                               "urgent": {"type": "noul", "instructions": "Does this need an answer today?",
                                          "criteria": {"true": "An outage or a deadline today",
                                                       "false": "Can wait until tomorrow"}}}}""");

        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().path("warnings").findValuesAsText("code")).doesNotContain("options_undescribed");
    }

    @Test
    void compatibilityWithEveryModel() {
        String template = """
                {"id": "photo-check", "modalities": ["text", "image"],
                 "variables": {"photo": {"type": "image"}, "note": {"type": "string"}},
                 "state": "{{note}}",
                 "questions": {"kind": {"type": "choice",
                                        "criteria": {"a": "one", "b": "two", "c": "three", "d": "four", "e": "five"}},
                               "quality": {"type": "score", "criteria": ["bad", "ok", "good"]}}%s}""";
        HttpReply created = http.post(T, template.formatted(", \"model\": \"hash-small\""));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.json().path("warnings").findValuesAsText("code")).containsOnly("default_model_incompatible");
        assertThat(created.json().path("warnings").findValuesAsText("param")).containsOnly("model");

        JsonNode report = http.get(T + "/photo-check/compatibility").json();
        assertThat(report.path("object").asText()).isEqualTo("template.compatibility");
        JsonNode small = report.path("models").findParents("model").stream()
                .filter(m -> m.path("model").asText().equals("hash-small"))
                .findFirst()
                .orElseThrow();
        assertThat(small.path("ok").asBoolean()).isFalse();
        assertThat(small.path("problems").findValuesAsText("code"))
                .containsExactly("type_not_supported", "too_many_options", "modality_not_supported");
        assertThat(small.path("notes").toString()).contains("tokens; it reads 512");
        JsonNode big = report.path("models").findParents("model").stream()
                .filter(m -> m.path("model").asText().equals("hash-decider"))
                .findFirst()
                .orElseThrow();
        assertThat(big.path("ok").asBoolean()).isTrue();
        assertThat(http.get(T + "/photo-check?include=compatibility")
                        .json()
                        .path("compatibility")
                        .size())
                .isEqualTo(report.path("models").size());

        http.post(T, template.replace("photo-check", "p2").formatted(", \"model\": \"gpt-9\""))
                .assertError(400, "invalid_field", "model");
        http.post(
                        T,
                        template.replace("photo-check", "p3")
                                .formatted(", \"settings\": {\"models\": {\"gpt-9\": {\"temperature\": 2}}}"))
                .assertError(400, "invalid_field", "settings.models.gpt-9");
    }
}
