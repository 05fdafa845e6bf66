package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code /metrics} after real work: decisions by model, template and outcome; model loads and their workers'
 * memory; pipeline runs and steps; notification deliveries; the connection pools and the JVM.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MetricsTest {
    private static final String QUESTIONS = "\"questions\": {\"team\": {\"type\": \"choice\", \"criteria\": "
            + "{\"billing\": \"charges\", \"tech\": \"errors\"}}}";
    private static final Duration LOAD = Duration.ofSeconds(60);

    private ArborServer server;
    private TestServer http;
    private HttpReceiver receiver;

    @BeforeAll
    void startServer() throws IOException {
        receiver = new HttpReceiver();
        server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
        http = server.http();
    }

    @AfterAll
    void stopServer() {
        server.close();
        receiver.close();
    }

    @Test
    void decisionsAreCountedAndTimedByModelTemplateAndOutcome() {
        String adhoc = "arbor_decisions_seconds_count{error=\"none\",model=\"hash-decider\",outcome=\"completed\","
                + "template=\"adhoc\"}";
        String templated = "arbor_decisions_seconds_count{error=\"none\",model=\"hash-decider\",outcome=\"completed\","
                + "template=\"project\"}";
        assertThat(http.post(
                                "/v1/studio/templates",
                                "{\"id\": \"metered\", \"model\": \"hash-decider\", "
                                        + "\"state\": \"{{message}}\", \"variables\": {\"message\": {\"type\": \"string\"}}, "
                                        + QUESTIONS + "}")
                        .status())
                .isEqualTo(201);
        double adhocBefore = value(adhoc);
        double templatedBefore = value(templated);

        HttpReply made = http.post(
                "/v1/studio/decisions", "{\"model\": \"hash-decider\", \"state\": \"refund\", " + QUESTIONS + "}");
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        assertThat(http.post(
                                "/v1/studio/decisions",
                                "{\"template\": \"metered\", \"variables\": {\"message\": " + "\"refund\"}}")
                        .status())
                .isEqualTo(200);
        http.post("/v1/studio/decisions", "{\"state\": 7}").assertError(400, "invalid_field", "state");

        assertThat(value(adhoc)).isEqualTo(adhocBefore + 1);
        assertThat(value(templated)).isEqualTo(templatedBefore + 1);
        assertThat(scrape()).as("no label names a project's template").doesNotContain("\"metered\"");
        assertThat(scrape())
                .as("a histogram of their time")
                .contains("arbor_decisions_seconds_bucket{error=\"none\","
                        + "model=\"hash-decider\",outcome=\"completed\",template=\"adhoc\",le=\"0.1\"}");
    }

    @Test
    void aDecisionThatFailsAtItsModelIsCountedWithItsErrorCode() {
        String failed = "arbor_decisions_seconds_count{error=\"model_load_failed\",model=\"hash-small\","
                + "outcome=\"failed\",template=\"adhoc\"}";
        String loadFailed = "arbor_model_loads_seconds_count{model=\"hash-small\",outcome=\"failed\"}";
        double before = value(failed);
        double loadsBefore = value(loadFailed);
        http.action("/models/hash-small/eject");
        assertThat(http.post("/models/hash-small/load", "{\"options\": {\"fail_load\": \"true\"}}")
                        .status())
                .isEqualTo(202);
        await().atMost(LOAD)
                .until(() -> http.get("/models/hash-small")
                        .json()
                        .path("status")
                        .asText()
                        .equals("failed"));

        http.post("/v1/studio/decisions", "{\"model\": \"hash-small\", \"state\": \"refund\", " + QUESTIONS + "}")
                .assertError(503, "model_load_failed", "model");

        assertThat(value(failed)).isEqualTo(before + 1);
        assertThat(value(loadFailed)).isEqualTo(loadsBefore + 1);
        http.action("/models/hash-small/eject");
    }

    @Test
    void aLoadIsCountedAndTimedAndItsWorkersMemoryShownUntilItIsEjected() {
        String loaded = "arbor_model_loads_seconds_count{model=\"hash-decider\",outcome=\"loaded\"}";
        String memory = "arbor_model_worker_resident_bytes{model=\"hash-decider\"}";
        http.action("/models/hash-decider/eject");
        assertThat(find(memory)).as("no worker, no gauge").isEmpty();
        double before = value(loaded);

        http.action("/models/hash-decider/load");
        await().atMost(LOAD)
                .until(() -> http.get("/models/hash-decider")
                        .json()
                        .path("status")
                        .asText()
                        .equals("loaded"));

        assertThat(value(loaded)).isEqualTo(before + 1);
        assertThat(value(memory)).as("the worker's resident memory").isGreaterThan(1 << 20);
        http.action("/models/hash-decider/eject");
        assertThat(find(memory)).isEmpty();
    }

    @Test
    void pipelineRunsAndStepsAreCountedByStatusAsTheyEnd() {
        String completedRuns = "arbor_pipeline_runs_finished_total{status=\"completed\"}";
        String failedRuns = "arbor_pipeline_runs_finished_total{status=\"failed\"}";
        String completedSteps = "arbor_pipeline_steps_finished_total{status=\"completed\"}";
        String failedSteps = "arbor_pipeline_steps_finished_total{status=\"failed\"}";
        double runsBefore = value(completedRuns);
        double failedBefore = value(failedRuns);
        double stepsBefore = value(completedSteps);
        double failedStepsBefore = value(failedSteps);
        String ok = pipeline(
                "metered-ok",
                "[{\"id\": \"a\", \"action\": \"set_output\", \"params\": {\"key\": "
                        + "\"v\", \"value\": 1}}, {\"id\": \"b\", \"action\": \"log\", \"depends_on\": [\"a\"], \"params\": "
                        + "{\"message\": \"hi\"}}]");
        String failing = pipeline(
                "metered-fail", "[{\"id\": \"a\", \"action\": \"fail\", \"params\": " + "{\"message\": \"no\"}}]");

        finished(http.post("/pipelines/" + ok + "/runs", "{}").json().path("id").asText());
        finished(http.post("/pipelines/" + failing + "/runs", "{}")
                .json()
                .path("id")
                .asText());

        assertThat(value(completedRuns)).isEqualTo(runsBefore + 1);
        assertThat(value(failedRuns)).isEqualTo(failedBefore + 1);
        assertThat(value(completedSteps)).isEqualTo(stepsBefore + 2);
        assertThat(value(failedSteps)).isEqualTo(failedStepsBefore + 1);
        assertThat(value("arbor_pipeline_steps_executing")).isZero();
    }

    @Test
    void notificationDeliveriesAreCountedByKindAndOutcome() {
        String delivered = "arbor_deliveries_seconds_count{error=\"none\",kind=\"webhook\",outcome=\"delivered\","
                + "source=\"notifications\"}";
        String refused = "arbor_deliveries_seconds_count{error=\"delivery_failed\",kind=\"webhook\","
                + "outcome=\"failed\",source=\"notifications\"}";
        double deliveredBefore = value(delivered);
        double refusedBefore = value(refused);
        receiver.script("/refusing", HttpReceiver.Reply.json(500, "{}"));
        http.put("/notification-channels/team_chat_1", "{\"webhook_url\": \"" + receiver.url("/hook") + "\"}");
        http.put("/notification-channels/team_chat_2", "{\"webhook_url\": \"" + receiver.url("/refusing") + "\"}");

        assertThat(http.post("/notification-channels/team_chat_1/test", "{}")
                        .json()
                        .path("delivered")
                        .asBoolean())
                .isTrue();
        assertThat(http.post("/notification-channels/team_chat_2/test", "{}")
                        .json()
                        .path("delivered")
                        .asBoolean())
                .isFalse();

        assertThat(value(delivered)).isEqualTo(deliveredBefore + 1);
        assertThat(value(refused)).isEqualTo(refusedBefore + 1);
    }

    @Test
    void theConnectionPoolsAndTheJvmAreShown() {
        http.get("/v1/studio/decisions");
        String scrape = scrape();
        assertThat(value("hikaricp_connections_max{pool=\"arbor-sqlite-writer\"}"))
                .isEqualTo(1);
        assertThat(value("hikaricp_connections_max{pool=\"arbor-sqlite-reader\"}"))
                .isEqualTo(4);
        assertThat(scrape)
                .contains("hikaricp_connections_acquire_seconds_count{pool=\"arbor-sqlite-reader\"}")
                .contains(
                        "jvm_gc_",
                        "jvm_memory_used_bytes{",
                        "jvm_threads_live_threads ",
                        "process_cpu_usage ",
                        "http_server_requests_seconds_count{");
    }

    @Test
    void onceAnAdminTokenExistsMetricsNeedIt() {
        try (var guarded = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", "metrics-admin-1"))) {
            TestServer api = guarded.http();
            api.get("/metrics").assertError(401, "missing_api_key", null);
            api.get("/metrics", "Authorization", "Bearer not-the-token").assertError(401, "invalid_api_key", null);
            HttpReply admin = api.get("/metrics", "Authorization", "Bearer metrics-admin-1");
            assertThat(admin.status()).isEqualTo(200);
            assertThat(admin.body()).contains("jvm_memory_used_bytes{");
            assertThat(api.get("/openapi.json")
                            .json()
                            .at("/paths/~1metrics/get/security/0")
                            .has("adminToken"))
                    .as("the document says so")
                    .isTrue();
        }
    }

    @Test
    void metricsArePublicWhenTheServerSaysSo() {
        try (var open =
                ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", "metrics-admin-2", "ARBOR_METRICS_PUBLIC", "true"))) {
            TestServer api = open.http();
            HttpReply scraped = api.get("/metrics");
            assertThat(scraped.status()).isEqualTo(200);
            assertThat(scraped.body()).contains("jvm_memory_used_bytes{");
            assertThat(api.get("/openapi.json").json().at("/paths/~1metrics/get/security"))
                    .as("the document says so")
                    .isEmpty();
            api.get("/projects").assertError(401, "missing_api_key", null);
        }
    }

    private String pipeline(String name, String steps) {
        HttpReply created = http.post("/pipelines", "{\"name\": \"" + name + "\", \"steps\": " + steps + "}");
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private void finished(String runId) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> Pattern.matches(
                        "completed|failed|cancelled",
                        http.get("/runs/" + runId).json().path("status").asText()));
    }

    private String scrape() {
        HttpReply reply = http.get("/metrics");
        assertThat(reply.status()).isEqualTo(200);
        return reply.body();
    }

    /** A series' value; 0 when it is not there yet (a counter nothing has counted). */
    private double value(String series) {
        return find(series).orElse(0);
    }

    private OptionalDouble find(String series) {
        return scrape().lines()
                .filter(line -> line.startsWith(series + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1)))
                .findFirst();
    }
}
