package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The studio's pages in a real browser against a real server with the bundled embedding model: a decision made in
 * the playground (its bars are what the server stored), found in history and given feedback; a template created,
 * edited and its two versions diffed; an eval on imported examples with its charts. Each step is asserted on what the
 * page shows (scenarios/studio.mjs), then on what the server holds.
 *
 * <p>The manual's screenshot (docs/console.md): {@code -Dconsole.screenshot=docs/console.png} on
 * {@code -Dtest=ConsoleStudioBrowserTest#theReadmeScreenshotShowsThePlaygroundsBars} writes it there; without the
 * property it goes with the other screenshots under target/.
 */
class ConsoleStudioBrowserTest {
    private static ArborServer server;
    private static TestServer http;
    private static ConsoleBrowser browser;
    private static String token;

    @BeforeAll
    static void start() throws Exception {
        server = ArborServer.start(Map.of());
        http = server.http();
        browser = ConsoleBrowser.forServer(http, "studio");
        token = ConsoleBrowser.adminToken(http);
        // the bundled model loads on its first decision: made here, so that no page waits for the load
        assertThat(http.post("/v1/studio/decisions", """
                        {"state": "warm up", "questions": {"ok": {"type": "noul"}}, "store": "none"}""").status()).isEqualTo(200);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aDecisionInThePlaygroundShowsTheProbabilitiesTheServerStored() throws Exception {
        JsonNode said = browser.run(
                "studio-playground",
                Map.of("token", token, "situation", "I was charged twice this month, please refund one of them."));
        JsonNode stored = http.get(
                        "/v1/studio/decisions/" + said.path("decision_id").asText())
                .json();
        assertThat(stored.path("status").asText()).isEqualTo("completed");
        Map<String, Double> expected = new HashMap<>();
        stored.path("answers")
                .properties()
                .forEach(answer -> answer.getValue()
                        .path("probabilities")
                        .properties()
                        .forEach(option -> expected.put(
                                answer.getKey() + ": " + shownOption(answer.getValue(), option.getKey()),
                                option.getValue().asDouble())));
        assertThat(expected).containsOnlyKeys("team: billing", "team: technical", "urgent: yes", "urgent: no");
        Map<String, Double> shown = new HashMap<>();
        said.path("bars")
                .properties()
                .forEach(bar -> shown.put(bar.getKey(), bar.getValue().asDouble()));
        assertThat(shown).isEqualTo(expected);
    }

    private static String shownOption(JsonNode answer, String option) {
        if (!answer.path("type").asText().equals("noul")) {
            return option;
        }
        return option.equals("true") ? "yes" : "no";
    }

    @Test
    void aDecisionFoundInHistoryByItsTextTakesFeedbackFromItsDetail() throws Exception {
        String decision =
                http.post("/v1/studio/decisions", """
                        {"state": "The export crashes with error 500 since the upgrade.",
                         "questions": {"team": {"type": "choice", "criteria": ["billing", "technical"]}}}""").json().path("id").asText();
        browser.run("studio-history-feedback", Map.of("token", token, "search", "upgrade", "decision", decision));
        JsonNode feedback = http.get("/v1/studio/decisions/" + decision + "/feedback")
                .json()
                .path("data");
        assertThat(feedback).hasSize(1);
        assertThat(feedback.get(0).path("question").asText()).isEqualTo("team");
        assertThat(feedback.get(0).path("expected").asText()).isEqualTo("technical");
        assertThat(feedback.get(0).path("rating").asInt()).isEqualTo(-1);
    }

    @Test
    void aTemplateCreatedAndEditedShowsTheLineDiffOfItsTwoVersions() throws Exception {
        JsonNode said = browser.run("studio-template-diff", Map.of("token", token, "template", "routing"));
        JsonNode template = http.get("/v1/studio/templates/routing").json();
        assertThat(template.path("version").asInt()).isEqualTo(2);
        assertThat(template.at("/questions/team/criteria/legal").asText()).isEqualTo("contracts and terms");
        assertThat(template.at("/aliases/prod").asInt()).isEqualTo(1);
        // version 1's options were a list; version 2's, with a description, an object: the diff shows both sides
        assertThat(said.path("added").toString()).contains("legal").contains("contracts and terms");
        assertThat(said.path("removed")).isNotEmpty();
    }

    @Test
    void anEvalOnImportedExamplesDrawsTheServersReliabilityBinsAndConfusionMatrix() throws Exception {
        ObjectNode template = (ObjectNode) Json.read("""
                {"id": "support-eval", "model": "minilm-decider", "questions": {
                  "refund": {"type": "noul", "instructions": "Is the customer asking for money back?"},
                  "team": {"type": "choice", "instructions": "Which team should handle this message?",
                           "criteria": {"billing": "invoices, charges, refunds and payment methods",
                                        "technical": "bugs, errors, crashes, outages and the API",
                                        "sales": "pricing, quotes, upgrades, demos and new purchases",
                                        "account": "logins, passwords, users and permissions"}}}}""");
        assertThat(http.post("/v1/studio/templates", template.toString()).status())
                .isEqualTo(201);
        List<String> examples = labelledExamples();
        JsonNode said = browser.run(
                "studio-eval",
                Map.of(
                        "token",
                        token,
                        "template",
                        "support-eval",
                        "examples",
                        examples,
                        "questions",
                        List.of("refund", "team"),
                        "confused",
                        "team"));
        JsonNode eval =
                http.get("/v1/studio/evals/" + said.path("eval_id").asText()).json();
        assertThat(eval.path("status").asText()).isEqualTo("completed");
        assertThat(eval.at("/progress/total").asInt()).isEqualTo(examples.size());
        for (String question : List.of("refund", "team")) {
            JsonNode measured = eval.at("/results/targets/0/questions/" + question);
            List<JsonNode> filled = new ArrayList<>();
            measured.path("reliability").forEach(bin -> {
                if (bin.path("n").asInt() > 0) {
                    filled.add(bin);
                }
            });
            JsonNode drawn = said.path("reliability").path(question);
            assertThat(drawn).as(question + " bars drawn").hasSize(filled.size());
            for (int i = 0; i < filled.size(); i++) {
                assertThat(drawn.get(i).path("from").asDouble())
                        .isCloseTo(filled.get(i).path("from").asDouble(), within(1e-9));
                assertThat(drawn.get(i).path("n").asInt())
                        .isEqualTo(filled.get(i).path("n").asInt());
                assertThat(drawn.get(i).path("accuracy").asDouble())
                        .isCloseTo(filled.get(i).path("accuracy").asDouble(), within(1e-9));
            }
        }
        JsonNode confusion = eval.at("/results/targets/0/questions/team/confusion");
        JsonNode rows = said.path("confusion");
        List<String> predicted = new ArrayList<>();
        rows.get(0).forEach(cell -> predicted.add(cell.asText()));
        for (int r = 1; r < rows.size(); r++) {
            String expected = rows.get(r).get(0).asText();
            for (int c = 1; c < predicted.size(); c++) {
                assertThat(rows.get(r).get(c).asInt())
                        .as(expected + " answered " + predicted.get(c))
                        .isEqualTo(
                                confusion.path(expected).path(predicted.get(c)).asInt(0));
            }
        }
        assertThat(rows.size() - 1).isEqualTo(confusion.size());
    }

    /** Our labelled set's lines for refund and team, as JSON lines for the import, half of them calibration. */
    private static List<String> labelledExamples() throws IOException {
        var lines = new ArrayList<String>();
        try (InputStream in =
                ConsoleStudioBrowserTest.class.getResourceAsStream("/calibration/embedding-labelled.jsonl")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                JsonNode labelled = Json.read(line);
                String question = labelled.path("question").asText();
                if (!question.equals("refund") && !question.equals("team")) {
                    continue;
                }
                ObjectNode example = Json.object();
                example.put("state", labelled.path("state").asText());
                example.putObject("expected")
                        .put(question, labelled.path("expected").asText());
                example.put("split", lines.size() % 2 == 0 ? "calibration" : "test");
                lines.add(example.toString());
            }
        }
        return lines;
    }

    @Test
    void aStudioWithItsOwnKeyAsksForItAndOpensWithTheRightOne() throws Exception {
        try (var keyed = ArborServer.start(Map.of("STUDIO_API_KEY", "sk-console"))) {
            TestServer keyedHttp = keyed.http();
            String keyedToken = keyedHttp
                    .post("/auth/tokens", "{\"name\": \"ops\", \"role\": \"admin\"}")
                    .json()
                    .path("token")
                    .asText();
            assertThat(keyedHttp
                            .post(
                                    "/v1/studio/templates",
                                    "{\"id\": \"keyed\", \"questions\": {\"ok\": {\"type\": \"noul\"}}}",
                                    "Authorization",
                                    "Bearer sk-console")
                            .status())
                    .isEqualTo(201);
            browser.at(keyedHttp)
                    .run("studio-key", Map.of("token", keyedToken, "key", "sk-console", "template", "keyed"));
        }
    }

    @Test
    void theReadmeScreenshotShowsThePlaygroundsBars() throws Exception {
        String asked = System.getProperty("console.screenshot", "");
        Path target = asked.isBlank()
                ? ConsoleBrowser.SHOTS.resolve("readme-console.png")
                : Path.of(asked).toAbsolutePath();
        Files.createDirectories(target.getParent());
        Files.deleteIfExists(target);
        browser.run("studio-readme-screenshot", Map.of("token", token, "path", target.toString()));
        assertThat(Files.size(target)).isPositive();
    }
}
