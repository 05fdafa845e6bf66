package dev.arbor.pipelines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StandardWebhookSigner;
import dev.arbor.testing.StandardWebhookSigner.Call;
import dev.arbor.testing.TestServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pipeline's webhook over HTTP: calls signed with the {@code standardwebhooks} npm library start runs whose steps
 * read the call's body as {@code event}; unsigned, wrongly signed, stale and rotated-out calls are refused; a repeated
 * {@code webhook-id} starts one run; the secret is shown once. Runs once on SQLite and once on PostgreSQL.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class WebhookContract {
    private static final AtomicInteger NAMES = new AtomicInteger();
    /** A secret Arbor never made: calls signed with it are refused. */
    private static final String STRANGER = "whsec_c3RyYW5nZXItc3RyYW5nZXItc3RyYW5nZXItc3RyYW5nZXI=";

    ArborServer server;
    TestServer http;

    abstract Map<String, String> environment();

    @BeforeAll
    void startServer() {
        server = ArborServer.start(environment());
        http = server.http();
    }

    @AfterAll
    void stopServer() {
        server.close();
    }

    @Test
    void aSignedCallStartsARunWhoseStepsReadItsBodyAsTheEvent() {
        String pipeline = create("""
                {"parameters": [{"name": "greeting", "type": "string", "default": "hello"}],
                 "steps": [{"id": "read", "action": "set_output",
                            "params": {"key": "order", "value": "{{ params.greeting }} {{ event.order.id }}"}}]}""");
        String secret = secret(pipeline, "{}").path("secret").asText();

        HttpReply reply = call(pipeline, new Call(secret, id(), now(), "{\"order\": {\"id\": 42}}"));

        assertThat(reply.status()).as(reply.body()).isEqualTo(202);
        String runId = reply.json().path("run_id").asText();
        assertThat(reply.json().path("duplicate").asBoolean()).isFalse();
        assertThat(reply.header("location")).isEqualTo("/runs/" + runId);
        JsonNode run = finished(runId);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        assertThat(run.at("/steps/0/outputs/order").asText()).isEqualTo("hello 42");
        assertThat(run.at("/trigger/type").asText()).isEqualTo("webhook");
        assertThat(run.at("/trigger/event/order/id").asInt()).isEqualTo(42);
    }

    @Test
    void aParamsMemberOfTheBodyIsPartOfTheEventNotTheRunsParams() {
        String pipeline = create("""
                {"parameters": [{"name": "n", "type": "integer", "default": 2}],
                 "steps": [{"id": "both", "action": "set_output",
                            "params": {"key": "v", "value": "{{ params.n }}/{{ event.params.n }}"}}]}""");
        String secret = secret(pipeline, "{}").path("secret").asText();

        JsonNode run = finished(call(pipeline, new Call(secret, id(), now(), "{\"params\": {\"n\": 5}}"))
                .json()
                .path("run_id")
                .asText());

        assertThat(run.path("params").toString()).isEqualTo("{\"n\":2}");
        assertThat(run.at("/steps/0/outputs/v").asText()).isEqualTo("2/5");
    }

    @Test
    void aRepeatedWebhookIdIsAcceptedAndStartsNoSecondRun() {
        String pipeline = create(ONE_STEP);
        String secret = secret(pipeline, "{}").path("secret").asText();
        String[] headers = StandardWebhookSigner.sign(new Call(secret, id(), now(), "{\"n\": 1}"));

        HttpReply first = http.post(path(pipeline), "{\"n\": 1}", headers);
        HttpReply again = http.post(path(pipeline), "{\"n\": 1}", headers);

        assertThat(first.status()).isEqualTo(202);
        assertThat(again.status()).as(again.body()).isEqualTo(202);
        assertThat(again.json().path("duplicate").asBoolean()).isTrue();
        assertThat(again.json().path("run_id").asText())
                .isEqualTo(first.json().path("run_id").asText());
        assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                .hasSize(1);
    }

    Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "signed with another secret",
                        (Refusal) (secret, body) -> StandardWebhookSigner.sign(new Call(STRANGER, id(), now(), body)),
                        "webhook-signature"),
                Arguments.of(
                        "another body than the one signed",
                        (Refusal) (secret, body) -> StandardWebhookSigner.sign(new Call(secret, id(), now(), "{}")),
                        "webhook-signature"),
                Arguments.of(
                        "no webhook-signature",
                        (Refusal) (secret, body) -> without(
                                StandardWebhookSigner.sign(new Call(secret, id(), now(), body)), "webhook-signature"),
                        "webhook-signature"),
                Arguments.of(
                        "no webhook-id",
                        (Refusal) (secret, body) ->
                                without(StandardWebhookSigner.sign(new Call(secret, id(), now(), body)), "webhook-id"),
                        "webhook-id"),
                Arguments.of(
                        "no webhook-timestamp",
                        (Refusal) (secret, body) -> without(
                                StandardWebhookSigner.sign(new Call(secret, id(), now(), body)), "webhook-timestamp"),
                        "webhook-timestamp"),
                Arguments.of("no headers at all", (Refusal) (secret, body) -> new String[0], "webhook-id"),
                Arguments.of(
                        "signed six minutes ago",
                        (Refusal)
                                (secret, body) -> StandardWebhookSigner.sign(new Call(secret, id(), now() - 360, body)),
                        "webhook-timestamp"),
                Arguments.of(
                        "signed six minutes ahead",
                        (Refusal)
                                (secret, body) -> StandardWebhookSigner.sign(new Call(secret, id(), now() + 360, body)),
                        "webhook-timestamp"),
                Arguments.of(
                        "a timestamp that is not unix seconds",
                        (Refusal) (secret, body) -> replaced(
                                StandardWebhookSigner.sign(new Call(secret, id(), now(), body)),
                                "webhook-timestamp",
                                "yesterday"),
                        "webhook-timestamp"),
                Arguments.of(
                        "a signature that is not v1",
                        (Refusal) (secret, body) -> replaced(
                                StandardWebhookSigner.sign(new Call(secret, id(), now(), body)),
                                "webhook-signature",
                                "v2,abc"),
                        "webhook-signature"));
    }

    /** The headers of a call to refuse, given the pipeline's secret and the body sent. */
    @FunctionalInterface
    interface Refusal {
        String[] headers(String secret, String body);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void aCallWithoutAValidSignatureIsRefusedAndStartsNothing(String why, Refusal refusal, String param) {
        String pipeline = create(ONE_STEP);
        String secret = secret(pipeline, "{}").path("secret").asText();
        String body = "{\"order\": 7}";

        HttpReply reply = http.post(path(pipeline), body, refusal.headers(secret, body));

        reply.assertError(401, "invalid_signature", param);
        assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                .isEmpty();
    }

    @Test
    void aPipelineWithoutASecretTakesNoCalls() {
        String pipeline = create(ONE_STEP);

        call(pipeline, new Call(STRANGER, id(), now(), "{}"))
                .assertError(401, "invalid_signature", "webhook-signature");
        assertThat(http.get("/pipelines/" + pipeline + "/webhook-secret")
                        .json()
                        .path("enabled")
                        .asBoolean())
                .isFalse();
    }

    @Test
    void anUnknownPipelineIs404() {
        call("pl_nope", new Call(STRANGER, id(), now(), "{}")).assertError(404, "pipeline_not_found", "pipeline_id");
    }

    @Test
    void aSignedBodyThatIsNotAJsonObjectIs400() {
        String pipeline = create(ONE_STEP);
        String secret = secret(pipeline, "{}").path("secret").asText();

        call(pipeline, new Call(secret, id(), now(), "[1, 2]")).assertError(400, "invalid_json", null);
        call(pipeline, new Call(secret, id(), now(), "{\"cut\": ")).assertError(400, "invalid_json", null);
    }

    @Test
    void theSecretIsShownOnceAndNeverInReads() throws Exception {
        String pipeline = create(ONE_STEP);

        JsonNode made = secret(pipeline, "{}");

        String secret = made.path("secret").asText();
        assertThat(secret).startsWith("whsec_");
        assertThat(made.path("enabled").asBoolean()).isTrue();
        assertThat(made.path("url").asText()).endsWith("/pipelines/" + pipeline + "/webhook");
        JsonNode read = http.get("/pipelines/" + pipeline + "/webhook-secret").json();
        assertThat(read.has("secret")).isFalse();
        assertThat(read.path("enabled").asBoolean()).isTrue();
        assertThat(read.path("secret_created_at").asLong()).isPositive();
        assertThat(http.get("/pipelines/" + pipeline + "/webhook-secret").body())
                .doesNotContain(secret);
        assertThat(http.get("/pipelines/" + pipeline).body()).doesNotContain(secret);
        // sealed at rest: the database file does not hold it (SQLite; PostgreSQL keeps its files elsewhere)
        try (Stream<Path> files = Files.walk(server.dataDir())) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                assertThat(new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1))
                        .as(file.toString())
                        .doesNotContain(secret.substring("whsec_".length()));
            }
        }
    }

    @Test
    void afterARotationBothSecretsWorkDuringTheGraceWindow() {
        String pipeline = create(ONE_STEP);
        String old = secret(pipeline, "{}").path("secret").asText();

        JsonNode rotated = secret(pipeline, "{}");

        String current = rotated.path("secret").asText();
        assertThat(current).isNotEqualTo(old);
        assertThat(rotated.path("previous_secret_expires_at").asLong())
                .isGreaterThan(now() + PipelineWebhooks.DEFAULT_GRACE_SECONDS - 60);
        assertThat(call(pipeline, new Call(old, id(), now(), "{}")).status()).isEqualTo(202);
        assertThat(call(pipeline, new Call(current, id(), now(), "{}")).status())
                .isEqualTo(202);
    }

    @Test
    void theReplacedSecretIsRefusedOnceItsGraceWindowHasPassed() {
        String pipeline = create(ONE_STEP);
        String old = secret(pipeline, "{}").path("secret").asText();
        String current =
                secret(pipeline, "{\"grace_seconds\": 1}").path("secret").asText();
        String[] signedWithOld = StandardWebhookSigner.sign(new Call(old, id(), now(), "{}"));

        await().atMost(Duration.ofSeconds(20))
                .until(() -> http.post(path(pipeline), "{}", signedWithOld).status() == 401);

        http.post(path(pipeline), "{}", signedWithOld).assertError(401, "invalid_signature", "webhook-signature");
        assertThat(call(pipeline, new Call(current, id(), now(), "{}")).status())
                .isEqualTo(202);
    }

    @Test
    void aRotationWithoutGraceEndsTheOldSecretAtOnce() {
        String pipeline = create(ONE_STEP);
        String old = secret(pipeline, "{}").path("secret").asText();

        JsonNode rotated = secret(pipeline, "{\"grace_seconds\": 0}");

        assertThat(rotated.path("previous_secret_expires_at").isNull()).isTrue();
        call(pipeline, new Call(old, id(), now(), "{}")).assertError(401, "invalid_signature", "webhook-signature");
    }

    @Test
    void removingTheSecretTurnsTheWebhookOff() {
        String pipeline = create(ONE_STEP);
        String secret = secret(pipeline, "{}").path("secret").asText();

        HttpReply removed = http.delete("/pipelines/" + pipeline + "/webhook-secret");

        assertThat(removed.status()).isEqualTo(200);
        assertThat(removed.json().path("enabled").asBoolean()).isFalse();
        call(pipeline, new Call(secret, id(), now(), "{}")).assertError(401, "invalid_signature", "webhook-signature");
    }

    @Test
    void aGraceWindowOutsideItsBoundsIs400() {
        String pipeline = create(ONE_STEP);

        secret(pipeline, "{\"grace_seconds\": -1}", 400).assertError(400, "invalid_field", "grace_seconds");
        secret(pipeline, "{\"grace_seconds\": 604801}", 400).assertError(400, "invalid_field", "grace_seconds");
    }

    private static final String ONE_STEP =
            "{\"steps\": [{\"id\": \"one\", \"action\": \"set_output\", \"params\": {\"key\": \"v\", \"value\": 1}}]}";

    String create(String definition) {
        String body = definition.replaceFirst("\\{", "{\"name\": \"hook-" + NAMES.incrementAndGet() + "\", ");
        HttpReply created = http.post("/pipelines", body);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    JsonNode secret(String pipeline, String body) {
        HttpReply reply = http.post("/pipelines/" + pipeline + "/webhook-secret", body);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    HttpReply secret(String pipeline, String body, int status) {
        HttpReply reply = http.post("/pipelines/" + pipeline + "/webhook-secret", body);
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        return reply;
    }

    HttpReply call(String pipeline, Call call) {
        return http.post(path(pipeline), call.body(), StandardWebhookSigner.sign(call));
    }

    static String path(String pipeline) {
        return "/pipelines/" + pipeline + "/webhook";
    }

    JsonNode finished(String runId) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !List.of("queued", "running")
                        .contains(
                                http.get("/runs/" + runId).json().path("status").asText()));
        return http.get("/runs/" + runId).json();
    }

    static String id() {
        return "msg_" + UUID.randomUUID();
    }

    static long now() {
        return System.currentTimeMillis() / 1000;
    }

    static String[] without(String[] headers, String name) {
        var kept = new ArrayList<String>();
        for (int i = 0; i < headers.length; i += 2) {
            if (!headers[i].equals(name)) {
                kept.addAll(Arrays.asList(headers[i], headers[i + 1]));
            }
        }
        return kept.toArray(String[]::new);
    }

    static String[] replaced(String[] headers, String name, String value) {
        String[] changed = headers.clone();
        for (int i = 0; i < changed.length; i += 2) {
            if (changed[i].equals(name)) {
                changed[i + 1] = value;
            }
        }
        return changed;
    }
}
