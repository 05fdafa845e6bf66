package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Statistics and version comparisons over HTTP; run once on SQLite and once on PostgreSQL. */
abstract class StatsApiContract extends StudioApiContract {
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
}
