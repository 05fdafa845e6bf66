package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.Corpora;
import dev.arbor.testing.HttpReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Fitted heads on the real bundled embedding model and real labelled mail (SpamAssassin): a template with one yes/no
 * question, calibration and test examples, a fit, the new version answering with its head, and an eval comparing it
 * with zero-shot on the test split.
 */
abstract class FitApiContract extends ServerContract {
    static final String TEMPLATE = "fit-mail";
    static final String F = "/v1/studio/fits";
    private static final int CALIBRATION = 120;
    private static final int TEST = 60;

    static ObjectNode template(String id) {
        ObjectNode template = (ObjectNode) Json.read("""
                {"questions": {"spam": {"type": "noul",
                 "instructions": "Is this mail unsolicited bulk mail (spam), an advert or a scam?"}}}""");
        template.put("id", id).put("model", "minilm-decider");
        return template;
    }

    /** Creates a template with these mails as examples of one split. */
    void create(String id, List<Corpora.Item> calibration, List<Corpora.Item> test) {
        assertThat(http.post("/v1/studio/templates", template(id).toString()).status())
                .isEqualTo(201);
        ArrayNode examples = Json.mapper().createArrayNode();
        calibration.forEach(mail -> example(examples, mail, "calibration"));
        test.forEach(mail -> example(examples, mail, "test"));
        if (!examples.isEmpty()) {
            ObjectNode body = Json.object();
            body.set("examples", examples);
            JsonNode imported = http.post("/v1/studio/templates/" + id + "/examples/import", body.toString())
                    .json();
            assertThat(imported.path("created").asInt()).as(imported.toString()).isEqualTo(examples.size());
        }
    }

    private static void example(ArrayNode examples, Corpora.Item mail, String split) {
        String text = mail.text().length() > 1500 ? mail.text().substring(0, 1500) : mail.text();
        ObjectNode example = examples.addObject().put("state", text).put("split", split);
        example.putObject("expected").put("spam", mail.label().equals("spam") ? "yes" : "no");
    }

    static List<Corpora.Item> mails(Corpora.Part part, int count) {
        return Corpora.slice(Corpora.part(Corpora.spamAssassin(), part), count);
    }

    @BeforeAll
    void createTemplates() {
        create(TEMPLATE, mails(Corpora.Part.FIT, CALIBRATION), mails(Corpora.Part.TEST, TEST));
        List<Corpora.Item> ham = mails(Corpora.Part.FIT, 200).stream()
                .filter(mail -> mail.label().equals("ham"))
                .limit(20)
                .toList();
        create("fit-one-class", ham, List.of());
        create("fit-few", mails(Corpora.Part.FIT, 6), List.of());
    }

    JsonNode finished(String id) {
        await().atMost(Duration.ofMinutes(3))
                .until(() -> !Set.of("queued", "in_progress")
                        .contains(http.get(F + "/" + id + "?wait=5")
                                .json()
                                .path("status")
                                .asText()));
        return http.get(F + "/" + id).json();
    }

    JsonNode fit(String template) {
        HttpReply accepted = http.post("/v1/studio/templates/" + template + "/fit", "{}");
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        assertThat(accepted.header("location")).isEqualTo(F + "/" + id);
        assertThat(accepted.json().path("status").asText()).isIn("queued", "in_progress", "completed");
        assertThat(accepted.json().path("progress").has("done")).isTrue();
        return finished(id);
    }

    /** One fit for the tests that read its result (fitting the same labels again gives the same heads anyway). */
    private JsonNode fitted;

    synchronized JsonNode fitted() {
        if (fitted == null) {
            fitted = fit(TEMPLATE);
        }
        return fitted;
    }

    @Test
    void aFitTrainsOnTheCalibrationSplitOnlyAndWritesANewVersion() {
        JsonNode fit = fitted();

        assertThat(fit.path("status").asText()).as(fit.toString()).isEqualTo("completed");
        assertThat(fit.path("object").asText()).isEqualTo("fit");
        assertThat(fit.path("version").asInt()).isEqualTo(2);
        assertThat(fit.at("/progress/done").asInt())
                .isEqualTo(fit.at("/progress/total").asInt());
        JsonNode facts = fit.at("/heads/spam/facts");
        assertThat(facts.path("labels").asInt()).isEqualTo(CALIBRATION); // the test split never trains
        assertThat(facts.path("label_counts").path("true").asInt()
                        + facts.path("label_counts").path("false").asInt())
                .isEqualTo(CALIBRATION);
        assertThat(facts.path("cv_accuracy").asDouble()).isGreaterThan(0.7);
        assertThat(facts.path("model").asText()).isEqualTo("minilm-decider");
        JsonNode version =
                http.get("/v1/studio/templates/" + TEMPLATE + "/versions/2").json();
        assertThat(version.toString()).contains(fit.at("/heads/spam/id").asText());
    }

    @Test
    void theFittedVersionAnswersWithItsHeadAndTheOldOneZeroShot() {
        String head = fitted().at("/heads/spam/id").asText();
        String mail = mails(Corpora.Part.TEST, 1).getFirst().text();
        ObjectNode body = Json.object().put("state", mail.length() > 1500 ? mail.substring(0, 1500) : mail);

        JsonNode onFitted = http.post(
                        "/v1/studio/decisions",
                        body.put("template", TEMPLATE + "@2").toString())
                .json();
        JsonNode onZeroShot = http.post(
                        "/v1/studio/decisions",
                        body.put("template", TEMPLATE + "@1").toString())
                .json();

        assertThat(onFitted.at("/answers/spam/method").asText())
                .as(onFitted.toString())
                .isEqualTo("fitted_head");
        assertThat(onFitted.at("/answers/spam/head").asText()).isEqualTo(head);
        assertThat(onZeroShot.at("/answers/spam").has("method"))
                .as(onZeroShot.toString())
                .isFalse();
    }

    @Test
    void aDecisionThroughADeploymentOfTheModelAnswersWithTheHeadFromTheReplicasEmbedding() {
        String head = fitted().at("/heads/spam/id").asText();
        String project = http.post("/projects", "{\"name\": \"fit-deployments\"}")
                .json()
                .path("id")
                .asText();
        HttpReply created = http.post(
                "/deployments",
                "{\"project_id\": \"" + project + "\", \"name\": \"mail-replicas\", \"model_id\": "
                        + "\"minilm-decider\", \"rate_limit\": {\"algorithm\": \"token_bucket\", \"rate_limit\": 100, "
                        + "\"time_window\": \"hour\"}}");
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String deployment = created.json().path("id").asText();
        await().atMost(Duration.ofMinutes(2))
                .until(() -> http.get("/deployments/" + deployment + "?wait=5")
                        .json()
                        .path("status")
                        .asText()
                        .equals("running"));
        String mail = mails(Corpora.Part.TEST, 1).getFirst().text();
        ObjectNode body = Json.object()
                .put("model", "mail-replicas")
                .put("state", mail.length() > 1500 ? mail.substring(0, 1500) : mail);
        body.putObject("questions").set("spam", template(TEMPLATE).at("/questions/spam"));

        HttpReply answered = http.post("/v1/decide", body.toString(), "X-Studio-Template", TEMPLATE + "@2");

        assertThat(answered.status()).as(answered.body()).isEqualTo(200);
        assertThat(answered.header("x-studio-template-status")).isEqualTo("attributed");
        assertThat(answered.header("x-ratelimit-remaining")).isEqualTo("99"); // the deployment's replicas answered
        JsonNode recorded = http.get("/v1/studio/decisions/" + answered.header("x-studio-decision-id"))
                .json();
        assertThat(recorded.at("/answers/spam/method").asText())
                .as(recorded.toString())
                .isEqualTo("fitted_head");
        assertThat(recorded.at("/answers/spam/head").asText()).isEqualTo(head);
    }

    @Test
    void anEvalComparesTheFittedVersionWithZeroShotOnTheTestSplit() {
        fitted();
        HttpReply accepted = http.post(
                "/v1/studio/evals",
                "{\"template\": \"" + TEMPLATE + "\", \"versions\": [1, 2], \"examples\": {\"split\": \"test\"}}");
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        await().atMost(Duration.ofMinutes(3))
                .until(() -> !Set.of("queued", "in_progress")
                        .contains(http.get("/v1/studio/evals/" + id + "?wait=5")
                                .json()
                                .path("status")
                                .asText()));
        JsonNode eval = http.get("/v1/studio/evals/" + id).json();

        assertThat(eval.path("status").asText()).as(eval.toString()).isEqualTo("completed");
        JsonNode zeroShot = eval.at("/results/targets/0/questions/spam");
        JsonNode fitted = eval.at("/results/targets/1/questions/spam");
        assertThat(zeroShot.path("n").asInt()).isEqualTo(TEST);
        assertThat(fitted.path("n").asInt()).isEqualTo(TEST);
        assertThat(fitted.path("accuracy").asDouble()).isGreaterThan(0.8);
        assertThat(eval.at("/results/comparisons/0")).isNotNull();
    }

    @Test
    void aFitCanBeCancelledWhileItEmbeds() {
        create("fit-cancel", mails(Corpora.Part.FIT, 400).subList(200, 400), List.of());
        HttpReply accepted = http.post("/v1/studio/templates/fit-cancel/fit", "{}");
        String id = accepted.json().path("id").asText();

        HttpReply cancelled = http.post(F + "/" + id + "/cancel", "");

        assertThat(cancelled.status()).as(cancelled.body()).isEqualTo(200);
        assertThat(cancelled.json().path("status").asText()).isEqualTo("cancelled");
        assertThat(finished(id).path("version").isNull()).isTrue();
        assertThat(http.get("/v1/studio/templates/fit-cancel")
                        .json()
                        .path("version")
                        .asInt())
                .isEqualTo(1);
    }

    @Test
    void aFinishedFitCannotBeCancelled() {
        String id = fitted().path("id").asText();

        HttpReply reply = http.post(F + "/" + id + "/cancel", "");

        assertThat(reply.status()).isEqualTo(409);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("fit_finished");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("fit_id");
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "unknown template", "/v1/studio/templates/no-such/fit", "{}", 404, "template_not_found", null),
                Arguments.of(
                        "one class only",
                        "/v1/studio/templates/fit-one-class/fit",
                        "{}",
                        409,
                        "too_few_labels",
                        "template_id"),
                Arguments.of(
                        "too few labels",
                        "/v1/studio/templates/fit-few/fit",
                        "{}",
                        409,
                        "too_few_labels",
                        "template_id"),
                Arguments.of(
                        "a model that cannot embed",
                        "/v1/studio/templates/" + TEMPLATE + "/fit",
                        "{\"model\": \"hash-small\"}",
                        400,
                        "model_capability_unsupported",
                        "model"),
                Arguments.of(
                        "an unknown question",
                        "/v1/studio/templates/" + TEMPLATE + "/fit",
                        "{\"questions\": [\"spam\", \"nope\"]}",
                        400,
                        "unknown_question",
                        "questions[1]"),
                Arguments.of(
                        "a head named outside a model's settings",
                        "/v1/studio/templates",
                        "{\"id\": \"fit-head-setting\", \"questions\": {\"spam\": {\"type\": \"noul\"}}, "
                                + "\"settings\": {\"questions\": {\"spam\": {\"head\": \"head_x\"}}}}",
                        400,
                        "invalid_field",
                        "settings.questions.spam.head"),
                Arguments.of("an unknown fit", F + "/fit_nothing?wait=0", null, 404, "fit_not_found", "fit_id"),
                Arguments.of(
                        "an unknown status in the list's filter",
                        F + "?status=done",
                        null,
                        400,
                        "invalid_parameter",
                        "status"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusedFits(String name, String path, String body, int status, String code, String param) {
        HttpReply reply = body == null ? http.get(path) : http.post(path, body);

        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo(code);
        if (param != null) {
            assertThat(reply.json().at("/error/param").asText()).isEqualTo(param);
        }
    }

    /** A few labelled mails of each class from the fit part, after the first {@code skip}: a fit of seconds. */
    static List<Corpora.Item> balanced(int skip, int perClass) {
        var chosen = new ArrayList<Corpora.Item>();
        for (String label : List.of("spam", "ham")) {
            mails(Corpora.Part.FIT, 3000).stream()
                    .skip(skip)
                    .filter(mail -> mail.label().equals(label))
                    .limit(perClass)
                    .forEach(chosen::add);
        }
        return chosen;
    }

    /** Starts a fit and answers its id at once (it runs on in the background). */
    String start(String template) {
        HttpReply accepted = http.post("/v1/studio/templates/" + template + "/fit", "{}");
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        return accepted.json().path("id").asText();
    }

    static List<String> ids(JsonNode list) {
        var ids = new ArrayList<String>();
        list.path("data").forEach(fit -> ids.add(fit.path("id").asText()));
        return ids;
    }

    @Test
    void fitsAreListedNewestFirstAPageAtATime() {
        create("fit-list-paged", balanced(800, 6), List.of());
        String older = fit("fit-list-paged").path("id").asText();
        String newer = fit("fit-list-paged").path("id").asText();

        JsonNode first = http.get(F + "?template_id=fit-list-paged&limit=1").json();
        JsonNode second = http.get(F + "?template_id=fit-list-paged&limit=1&after=" + newer)
                .json();

        assertThat(ids(first)).containsExactly(newer);
        assertThat(first.path("has_more").asBoolean()).isTrue();
        assertThat(first.at("/data/0")).isEqualTo(http.get(F + "/" + newer).json());
        assertThat(ids(second)).containsExactly(older);
        assertThat(second.path("has_more").asBoolean()).isFalse();
    }

    @Test
    void fitsAreListedByTemplateAndByStatus() {
        create("fit-list-done", balanced(900, 6), List.of());
        create("fit-list-cancelled", mails(Corpora.Part.FIT, 600).subList(400, 600), List.of());
        String completed = fit("fit-list-done").path("id").asText();
        String cancelled = start("fit-list-cancelled");
        assertThat(http.post(F + "/" + cancelled + "/cancel", "").status()).isEqualTo(200);

        List<String> ofTemplate = ids(http.get(F + "?template_id=fit-list-done").json());
        List<String> ofStatus = ids(http.get(F + "?status=cancelled&limit=100").json());

        assertThat(ofTemplate).containsExactly(completed);
        assertThat(ofStatus).contains(cancelled).doesNotContain(completed);
    }

    @Test
    void deletingAnUnfinishedFitCancelsItAndRemovesIt() {
        create("fit-delete-running", mails(Corpora.Part.FIT, 800).subList(600, 800), List.of());
        String id = start("fit-delete-running");

        HttpReply deleted = http.delete(F + "/" + id);

        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(deleted.json().path("object").asText()).isEqualTo("fit.deleted");
        assertThat(deleted.json().path("deleted").asBoolean()).isTrue();
        assertThat(http.get(F + "/" + id).status()).isEqualTo(404);
        assertThat(ids(http.get(F + "?template_id=fit-delete-running").json())).isEmpty();
        assertThat(http.get("/v1/studio/templates/fit-delete-running")
                        .json()
                        .path("version")
                        .asInt())
                .isEqualTo(1);
    }

    @Test
    void deletingACompletedFitKeepsTheHeadItsVersionAnswersWith() {
        create("fit-delete-done", balanced(1000, 6), List.of());
        JsonNode fit = fit("fit-delete-done");
        assertThat(fit.path("status").asText()).as(fit.toString()).isEqualTo("completed");
        String head = fit.at("/heads/spam/id").asText();

        HttpReply deleted = http.delete(F + "/" + fit.path("id").asText());

        assertThat(deleted.status()).as(deleted.body()).isEqualTo(200);
        assertThat(http.get(F + "/" + fit.path("id").asText()).status()).isEqualTo(404);
        String mail = mails(Corpora.Part.TEST, 1).getFirst().text();
        ObjectNode body = Json.object()
                .put("state", mail.length() > 1500 ? mail.substring(0, 1500) : mail)
                .put("template", "fit-delete-done@" + fit.path("version").asInt());
        JsonNode decision = http.post("/v1/studio/decisions", body.toString()).json();
        assertThat(decision.at("/answers/spam/method").asText())
                .as(decision.toString())
                .isEqualTo("fitted_head");
        assertThat(decision.at("/answers/spam/head").asText()).isEqualTo(head);
    }

    @Test
    void deletingAnUnknownFitIsNotFound() {
        HttpReply reply = http.delete(F + "/fit_nothing");

        assertThat(reply.status()).as(reply.body()).isEqualTo(404);
        assertThat(reply.json().at("/error/code").asText()).isEqualTo("fit_not_found");
        assertThat(reply.json().at("/error/param").asText()).isEqualTo("fit_id");
    }

    @Test
    void tooFewLabelsSaysTheCountsPerQuestionAndClass() {
        HttpReply reply = http.post("/v1/studio/templates/fit-one-class/fit", "{}");

        JsonNode counts = reply.json().at("/error/labels/spam");
        assertThat(counts.path("false").asInt()).isEqualTo(20);
        assertThat(counts.path("true").asInt()).isZero();
    }
}
