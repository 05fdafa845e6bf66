package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Evals on the real bundled embedding model: a template with a yes/no and a choice question, its labelled examples
 * (our labelled set, split into calibration and test), history with feedback, and inline items.
 */
abstract class EvalApiContract extends ServerContract {
    static final String E = "/v1/studio/evals";
    static final String TEMPLATE = "eval-support";
    private static final String QUESTIONS = """
            {"refund": {"type": "noul", "instructions": "Is the customer asking for money back?"},
             "team": {"type": "choice", "instructions": "Which team should handle this message?",
                      "criteria": {"billing": "invoices, charges, refunds and payment methods",
                                   "technical": "bugs, errors, crashes, outages and the API",
                                   "sales": "pricing, quotes, upgrades, demos and new purchases",
                                   "account": "logins, passwords, users and permissions"}}}""";

    /** The labelled lines of our set for the two questions, in file order. */
    static List<JsonNode> labelled() {
        try (InputStream in = EvalApiContract.class.getResourceAsStream("/calibration/embedding-labelled.jsonl")) {
            var lines = new ArrayList<JsonNode>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode example = Json.read(line);
                if (Set.of("refund", "team").contains(example.path("question").asText())) {
                    lines.add(example);
                }
            }
            return lines;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Puts every labelled line into {@code body} as an inline item: its state and its one expected answer. */
    static void inlineLabelled(ObjectNode body) {
        ArrayNode items = body.putObject("inline").putArray("items");
        for (JsonNode line : labelled()) {
            ObjectNode item = items.addObject().put("state", line.path("state").asText());
            item.putObject("expected")
                    .put(line.path("question").asText(), line.path("expected").asText());
        }
    }

    static ObjectNode template(String id) {
        ObjectNode template = (ObjectNode) Json.read("{\"questions\": " + QUESTIONS + "}");
        template.put("id", id).put("model", "minilm-decider");
        return template;
    }

    @BeforeAll
    void createTemplateWithExamples() {
        for (String id : List.of(TEMPLATE, TEMPLATE + "-apply")) {
            assertThat(http.post("/v1/studio/templates", template(id).toString())
                            .status())
                    .isEqualTo(201);
        }
        ArrayNode examples = Json.mapper().createArrayNode();
        List<JsonNode> lines = labelled();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode line = lines.get(i);
            ObjectNode example =
                    examples.addObject().put("state", line.path("state").asText());
            example.putObject("expected")
                    .put(line.path("question").asText(), line.path("expected").asText());
            example.put("split", i % 2 == 0 ? "calibration" : "test");
        }
        ObjectNode body = Json.object();
        body.set("examples", examples);
        JsonNode imported = http.post("/v1/studio/templates/" + TEMPLATE + "/examples/import", body.toString())
                .json();
        assertThat(imported.path("created").asInt()).as(imported.toString()).isEqualTo(lines.size());
        ObjectNode second = template(TEMPLATE);
        ((ObjectNode) second.path("questions").path("refund"))
                .put("instructions", "Does the customer want a refund of a payment?");
        assertThat(http.put("/v1/studio/templates/" + TEMPLATE, second.toString())
                        .json()
                        .path("change")
                        .asText())
                .isEqualTo("new_version");
    }

    /** Starts an eval, checks the 202, and waits for it to finish. */
    JsonNode run(String body) {
        HttpReply accepted = http.post(E, body);
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        assertThat(accepted.header("location")).isEqualTo(E + "/" + id);
        assertThat(accepted.json().path("status").asText()).isIn("queued", "in_progress", "completed");
        return finished(id);
    }

    JsonNode finished(String id) {
        await().atMost(Duration.ofMinutes(3))
                .until(() -> !Set.of("queued", "in_progress")
                        .contains(http.get(E + "/" + id + "?wait=30")
                                .json()
                                .path("status")
                                .asText()));
        return http.get(E + "/" + id).json();
    }

    @Test
    void anEvalOverTheExamplesMeasuresEachQuestionOnTheTestSplitAfterFittingOnTheCalibrationSplit() {
        JsonNode eval = run("{\"template\": \"" + TEMPLATE + "@1\", \"examples\": {}}");
        assertThat(eval.path("status").asText()).as(eval.toString()).isEqualTo("completed");
        assertThat(eval.path("object").asText()).isEqualTo("eval");
        assertThat(eval.at("/progress/done").asInt())
                .isEqualTo(eval.at("/progress/total").asInt());
        assertThat(eval.at("/progress/total").asInt()).isEqualTo(labelled().size());
        JsonNode target = eval.at("/results/targets/0");
        assertThat(target.path("model").asText()).isEqualTo("minilm-decider");
        assertThat(target.path("version").asInt()).isEqualTo(1);
        assertThat(target.path("measured_on").asText()).isEqualTo("test");
        assertThat(target.path("fitted_on").asText()).isEqualTo("calibration");
        for (String question : List.of("refund", "team")) {
            JsonNode measured = target.path("questions").path(question);
            int n = measured.path("n").asInt();
            assertThat(n).as(question).isPositive();
            assertThat(measured.path("accuracy").asDouble())
                    .as(question + " accuracy = correct / n")
                    .isCloseTo(measured.path("correct").asDouble() / n, org.assertj.core.api.Assertions.within(1e-4));
            int confused = 0;
            for (JsonNode row : measured.path("confusion")) {
                for (JsonNode count : row) {
                    confused += count.asInt();
                }
            }
            assertThat(confused).as(question + " confusion sums to n").isEqualTo(n);
            assertThat(measured.path("ece").asDouble()).isBetween(0.0, 1.0);
            assertThat(measured.path("reliability"))
                    .as(question + " reliability bins")
                    .hasSize(10);
            int binned = 0;
            for (JsonNode bin : measured.path("reliability")) {
                binned += bin.path("n").asInt();
            }
            assertThat(binned)
                    .as(question + " reliability bins hold every measured answer")
                    .isEqualTo(n);
            assertThat(measured.path("brier").asDouble()).isBetween(0.0, 2.0);
            assertThat(measured.path("log_loss").asDouble()).isNotNegative();
            assertThat(measured.path("confident_mistakes").asInt()).isBetween(0, n);
            assertThat(measured.at("/temperature/current").asDouble()).isEqualTo(1.0);
            assertThat(measured.at("/temperature/fitted").asDouble()).isBetween(0.25, 8.0);
            assertThat(measured.at("/temperature/log_loss_fitted").asDouble())
                    .isLessThanOrEqualTo(
                            measured.at("/temperature/log_loss_current").asDouble());
            assertThat(measured.at("/act_threshold/current").asDouble()).isEqualTo(0.9);
            assertThat(measured.at("/act_threshold/error_budget").asDouble()).isEqualTo(0.1);
        }
    }

    @Test
    void itemsArePagedAndTheirDecisionsAreHiddenFromHistoryUnlessAskedFor() {
        JsonNode eval = run("{\"template\": \"" + TEMPLATE + "\", \"examples\": {\"split\": \"test\"}, "
                + "\"questions\": [\"refund\"], \"store\": \"full\"}");
        String id = eval.path("id").asText();
        int total = eval.at("/progress/total").asInt();
        assertThat(eval.path("questions")).hasSize(1);
        JsonNode first = http.get(E + "/" + id + "/items?limit=3").json();
        assertThat(first.path("data")).hasSize(3);
        assertThat(first.path("has_more").asBoolean()).isTrue();
        JsonNode item = first.at("/data/0");
        assertThat(item.path("split").asText()).isEqualTo("test");
        assertThat(item.at("/answers/questions/refund/correct").isBoolean()).isTrue();
        assertThat(item.at("/answers/questions/refund/label").asText()).isIn("yes", "no");
        JsonNode rest = http.get(E + "/" + id + "/items?limit=100&after="
                        + first.path("last_id").asText())
                .json();
        assertThat(rest.path("data")).hasSize(total - 3);
        assertThat(rest.path("has_more").asBoolean()).isFalse();

        String decision = item.path("decision_id").asText();
        assertThat(http.get(D + "/" + decision).json().at("/source/surface").asText())
                .isEqualTo("eval");
        assertThat(ids(http.get(D + "?limit=100&request_id=" + id).json())).isEmpty();
        assertThat(ids(http.get(D + "?limit=100&surface=eval&request_id=" + id).json()))
                .hasSize(total)
                .contains(decision);
        assertThat(ids(http.get(D + "?limit=100&surface=all&request_id=" + id).json()))
                .hasSize(total);
    }

    private static Set<String> ids(JsonNode list) {
        var ids = new HashSet<String>();
        list.path("data").forEach(d -> ids.add(d.path("id").asText()));
        return ids;
    }

    static final String D = "/v1/studio/decisions";

    @Test
    void twoVersionsOnOneModelAreComparedItemByItem() {
        JsonNode eval = run("{\"template\": \"" + TEMPLATE + "\", \"models\": [\"minilm-decider\"], "
                + "\"versions\": [1, 2], \"examples\": {}}");
        assertThat(eval.path("status").asText()).as(eval.toString()).isEqualTo("completed");
        assertThat(eval.path("targets")).hasSize(2);
        JsonNode comparison = eval.at("/results/comparisons/0");
        assertThat(comparison.path("model").asText()).isEqualTo("minilm-decider");
        assertThat(comparison.path("from_version").asInt()).isEqualTo(1);
        assertThat(comparison.path("to_version").asInt()).isEqualTo(2);
        JsonNode refund = comparison.at("/questions/refund");
        assertThat(refund.path("n").asInt())
                .as("every labelled item is compared: the versions were not fitted on any")
                .isEqualTo((int) labelled().stream()
                        .filter(line -> line.path("question").asText().equals("refund"))
                        .count());
        assertThat(refund.path("fixed").asInt() + refund.path("broken").asInt())
                .isLessThanOrEqualTo(refund.path("n").asInt());
        assertThat(refund.path("mcnemar_p").asDouble()).isBetween(0.0, 1.0);
        assertThat(comparison.at("/questions/team/fixed").asInt())
                .as("team's question did not change between the versions")
                .isZero();
        assertThat(comparison.at("/questions/team/broken").asInt()).isZero();
    }

    @Test
    void labelledHistoryIsADataSet() {
        List<String> states = List.of(
                "Please refund the 30 euros you charged me twice.",
                "How do I add a colleague to our workspace?",
                "The export button gives an error since yesterday.");
        List<String> labels = List.of("yes", "no", "no");
        for (int i = 0; i < states.size(); i++) {
            ObjectNode body = Json.object().put("template", TEMPLATE).put("state", states.get(i));
            body.putObject("metadata").put("set", "history-eval");
            String decision = http.post(D, body.toString()).json().path("id").asText();
            HttpReply labelled = http.post(
                    D + "/" + decision + "/feedback",
                    "{\"rating\": null, \"expected\": {\"refund\": \"" + labels.get(i) + "\"}}");
            assertThat(labelled.status()).as(labelled.body()).isEqualTo(200);
        }
        JsonNode eval = run("{\"template\": \"" + TEMPLATE + "\", "
                + "\"history\": {\"filter\": {\"metadata.set\": \"history-eval\"}, \"labels\": \"feedback\"}}");
        assertThat(eval.path("status").asText()).as(eval.toString()).isEqualTo("completed");
        assertThat(eval.at("/data_set/kind").asText()).isEqualTo("history");
        assertThat(eval.path("items").asInt()).isEqualTo(3);
        assertThat(eval.at("/results/targets/0/questions/refund/n").asInt()).isEqualTo(3);
        assertThat(eval.at("/results/targets/0/questions").has("team"))
                .as("no label, nothing measured")
                .isFalse();
        assertThat(http.get(E + "/" + eval.path("id").asText() + "/items")
                        .json()
                        .at("/data/0/source")
                        .asText())
                .startsWith("dec_");
    }

    @Test
    void inlineItemsMeasureAnInlineDefinitionWhichHasNoTemplateToApplyTo() {
        ObjectNode body = Json.object();
        body.set("definition", Json.read("{\"model\": \"minilm-decider\", \"questions\": " + QUESTIONS + "}"));
        inlineLabelled(body);
        JsonNode eval = run(body.toString());
        assertThat(eval.path("status").asText()).as(eval.toString()).isEqualTo("completed");
        assertThat(eval.path("template").isNull()).isTrue();
        assertThat(eval.at("/results/targets/0/measured_on").asText()).isEqualTo("all");
        assertThat(eval.at("/results/targets/0/questions/team/n").asInt()).isEqualTo(12);
        http.post(E + "/" + eval.path("id").asText() + "/apply", "{}")
                .assertError(409, "eval_has_no_template", "eval_id");
    }

    @Test
    void applyWritesTheFittedTemperatureAndThresholdIntoANewVersion() {
        String template = TEMPLATE + "-apply";
        ObjectNode body = Json.object().put("template", template);
        inlineLabelled(body);
        JsonNode eval = run(body.toString());
        String id = eval.path("id").asText();
        JsonNode refused = http.post(E + "/" + id + "/apply", "{}").assertError(409, "too_few_labels", "min_n");
        assertThat(refused.path("min_n").asInt()).isEqualTo(30);
        assertThat(refused.at("/labels/team").asInt())
                .isEqualTo(eval.at("/results/targets/0/questions/team/temperature/n")
                        .asInt());

        JsonNode applied = http.post(E + "/" + id + "/apply", "{\"min_n\": 10, \"questions\": [\"refund\"]}")
                .json();
        assertThat(applied.path("object").asText()).as(applied.toString()).isEqualTo("eval.applied");
        assertThat(applied.path("version").asInt()).isEqualTo(2);
        assertThat(applied.path("created").asBoolean()).isTrue();
        double fitted = eval.at("/results/targets/0/questions/refund/temperature/fitted")
                .asDouble();
        JsonNode version =
                http.get("/v1/studio/templates/" + template + "/versions/2").json();
        assertThat(version.path("source").asText()).isEqualTo("eval_apply");
        assertThat(version.at("/settings/models/minilm-decider/questions/refund/temperature")
                        .asDouble())
                .isEqualTo(fitted);
        assertThat(version.at("/settings/models/minilm-decider/questions").has("team"))
                .isFalse();
    }

    @Test
    void aFinishedEvalCannotBeCancelledAndADeletedOneIsGone() {
        JsonNode eval = run("{\"template\": \"" + TEMPLATE + "\", \"examples\": {\"ids\": []}, \"store\": \"none\"}");
        String id = eval.path("id").asText();
        assertThat(http.get(E + "/" + id + "/items")
                        .json()
                        .at("/data/0/decision_id")
                        .isNull())
                .as("store none keeps no decision")
                .isTrue();
        http.action(E + "/" + id + "/cancel").assertError(409, "eval_finished", "eval_id");
        assertThat(ids(http.get(E + "?limit=100").json())).contains(id);
        JsonNode deleted = http.delete(E + "/" + id).json();
        assertThat(deleted.path("deleted").asBoolean()).isTrue();
        assertThat(deleted.path("object").asText()).isEqualTo("eval.deleted");
        http.get(E + "/" + id).assertError(404, "eval_not_found", "eval_id");
        http.get(E + "/" + id + "/items").assertError(404, "eval_not_found", "eval_id");
        assertThat(ids(http.get(E + "?limit=100").json())).doesNotContain(id);
    }

    @Test
    void aRunningEvalCanBeCancelledAndThenHasNothingToApply() {
        // the small test model takes a minute to load, so the eval waits at its first item
        http.post("/models/hash-small/load", "{\"options\": {\"load_delay_ms\": \"60000\"}}");
        HttpReply accepted =
                http.post(E, "{\"template\": \"" + TEMPLATE + "\", \"models\": [\"hash-small\"], \"examples\": {}}");
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        await().atMost(Duration.ofSeconds(10))
                .until(() ->
                        http.get(E + "/" + id).json().path("status").asText().equals("in_progress"));
        JsonNode cancelled = http.action(E + "/" + id + "/cancel").json();
        assertThat(cancelled.path("status").asText()).as(cancelled.toString()).isEqualTo("cancelled");
        assertThat(http.get(E + "/" + id + "?wait=1").json().path("status").asText())
                .isEqualTo("cancelled");
        http.post(E + "/" + id + "/apply", "{}").assertError(409, "eval_not_completed", "eval_id");
    }

    static Stream<Arguments> refusals() {
        String examples = ", \"examples\": {}";
        return Stream.of(
                Arguments.of(
                        "{\"template\": \"no-such-template\"" + examples + "}", 404, "template_not_found", "template"),
                Arguments.of("{\"template\": \"" + TEMPLATE + "\"}", 400, "missing_field", "examples"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "@9\"" + examples + "}",
                        404,
                        "template_version_not_found",
                        "template"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"versions\": [9]" + examples + "}",
                        404,
                        "template_version_not_found",
                        "versions"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"examples\": {\"tags\": [\"none-has-this\"]}}",
                        400,
                        "no_labelled_items",
                        "examples"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"history\": {\"filter\": {\"metadata.set\": \"none\"}}}",
                        400,
                        "no_labelled_items",
                        "history"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"inline\": {\"items\": [{\"state\": \"x\", "
                                + "\"expected\": {}}]}}",
                        400,
                        "no_labelled_items",
                        "inline.items"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"models\": [\"no-such-model\"]" + examples + "}",
                        404,
                        "model_not_found",
                        "models[0]"),
                Arguments.of(
                        "{\"definition\": {\"questions\": {\"q\": {\"type\": \"choice\", \"criteria\": [\"a\", \"b\", "
                                + "\"c\", \"d\", \"e\"]}}}, \"targets\": [{\"model\": \"hash-small\"}], "
                                + "\"inline\": {\"items\": [{\"state\": \"x\", \"expected\": {\"q\": \"a\"}}]}}",
                        400,
                        "model_incompatible",
                        "targets[0].model"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"questions\": [\"refnd\"]" + examples + "}",
                        400,
                        "unknown_question",
                        "questions[0]"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"error_budget\": 1.5" + examples + "}",
                        400,
                        "invalid_field",
                        "error_budget"),
                Arguments.of(
                        "{\"template\": \"" + TEMPLATE + "\", \"models\": [\"a\", \"b\", \"c\"], "
                                + "\"versions\": [1, 2, 1]" + examples + "}",
                        400,
                        "invalid_field",
                        "models"));
    }

    @ParameterizedTest(name = "{2} {3}")
    @MethodSource("refusals")
    void badEvalsAreRefusedBeforeAnythingRuns(String body, int status, String code, String param) {
        http.post(E, body).assertError(status, code, param);
    }

    @Test
    void anUnknownEvalIsNotFoundEverywhere() {
        http.get(E + "/eval_nope").assertError(404, "eval_not_found", "eval_id");
        http.action(E + "/eval_nope/cancel").assertError(404, "eval_not_found", "eval_id");
        http.post(E + "/eval_nope/apply", "{}").assertError(404, "eval_not_found", "eval_id");
        http.delete(E + "/eval_nope").assertError(404, "eval_not_found", "eval_id");
    }
}
