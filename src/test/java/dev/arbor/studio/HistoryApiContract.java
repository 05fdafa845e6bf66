package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

/** History over HTTP: the list and its filters, search, export, edits, redaction and deletion; run once on SQLite and once on PostgreSQL. */
abstract class HistoryApiContract extends StudioApiContract {
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

        assertThat(listed("metadata.batch=list&template=plain")).isEqualTo(2);
        assertThat(listed("metadata.batch=list&template=plain@1")).isEqualTo(2);
        assertThat(listed("metadata.batch=list&template=none")).isEqualTo(6);
        long yes = 0;
        long acted = 0;
        for (JsonNode d : all.path("data")) {
            yes += d.at("/answers/ok/decision").asText().equals("yes") ? 1 : 0;
            acted += d.path("act").asBoolean() ? 1 : 0;
        }
        assertThat(listed("metadata.batch=list&answer.ok=true")).isEqualTo(yes);
        assertThat(listed("metadata.batch=list&answer.ok=yes,no")).isEqualTo(2);
        assertThat(listed("metadata.batch=list&answer.team=billing,tech,sales&act=true"))
                .isLessThanOrEqualTo((int) acted);
        assertThat(listed("metadata.batch=list&certainty_above.ok=0")).isEqualTo(2);
        assertThat(listed("metadata.batch=list&certainty_below.ok=0")).isZero();
        assertThat(listed("metadata.batch=list&created_after=-1h")).isEqualTo(8);
        long future = System.currentTimeMillis() / 1000 + 3600;
        assertThat(http.get(D + "?metadata.batch=list&created_after=" + future)
                        .json()
                        .path("data")
                        .size())
                .isZero();
        assertThat(listed("metadata.batch=list&created_before=2000-01-01T00:00:00Z"))
                .isZero();
        assertThat(listed("metadata.batch=list&model=hash-decider&status=completed&surface=api"))
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
}
