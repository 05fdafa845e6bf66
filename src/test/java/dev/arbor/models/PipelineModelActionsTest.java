package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.ChatCompletionsServer;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The model actions of pipelines against the real registry: a model added from a (local test) hub and waited for,
 * measured on the bundled engine, a cloud model added with its key from a stored credential, then deleted; and the
 * credentials those keys come from.
 */
class PipelineModelActionsTest {
    @Test
    void aPipelineAddsMeasuresAndDeletesModelsWithKeysFromCredentials() throws Exception {
        try (var hub = new TestHub().withMiniLm("test/minilm");
                var cloud = new ChatCompletionsServer("sk-cloud-123", true);
                var server = ArborServer.start(
                        Map.of("ARBOR_MODEL_HUB_URL", hub.url(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            JsonNode credential = http.post("/credentials", "{\"name\": \"cloud-key\", \"value\": \"sk-cloud-123\"}")
                    .json();
            assertThat(credential.toString()).doesNotContain("sk-cloud-123");
            http.post("/credentials", "{\"name\": \"cloud-key\", \"value\": \"x\"}")
                    .assertError(409, "credential_exists", "name");
            http.post("/credentials", "{\"name\": \"no-value\"}").assertError(400, "missing_field", "value");
            assertThat(http.get("/credentials").json().toString()).doesNotContain("sk-cloud-123");

            String pipeline = http.post("/pipelines", """
                    {"name": "model ops", "steps": [
                      {"id": "add", "action": "add_model", "params": {"model_uri": "test/minilm",
                       "model_name": "Mini LM", "model_source": "model_hub"}},
                      {"id": "bench", "action": "model_benchmark", "depends_on": ["add"],
                       "params": {"model_id": "{{ steps.add.outputs.model_id }}", "metrics": ["latency"],
                                  "test_prompts": ["The printer is on fire.", "Lunch is at noon."]}},
                      {"id": "cloud", "action": "add_cloud_model", "params": {"provider": "%s",
                       "model_id": "tiny-chat", "api_key": "cloud-key"}},
                      {"id": "drop", "action": "delete_model", "depends_on": ["bench"],
                       "params": {"model_id": "{{ steps.add.outputs.model_id }}"}}]}""".formatted(cloud.url()))
                    .json()
                    .path("id")
                    .asText();
            String runId = http.post("/pipelines/" + pipeline + "/runs", "{}")
                    .json()
                    .path("id")
                    .asText();
            await().atMost(Duration.ofSeconds(120))
                    .until(() -> !http.get("/runs/" + runId)
                            .json()
                            .path("status")
                            .asText()
                            .matches("queued|running"));
            JsonNode run = http.get("/runs/" + runId).json();
            assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
            JsonNode added = step(run, "add").path("outputs");
            assertThat(added.path("model_id").asText()).isEqualTo("mini-lm");
            assertThat(added.path("model_name").asText()).isEqualTo("Mini LM");
            assertThat(added.path("size_bytes").asLong()).isGreaterThan(1_000_000);
            JsonNode bench = step(run, "bench").path("outputs");
            assertThat(bench.path("latency_p50").asDouble()).isPositive();
            assertThat(bench.path("latency_p99").asDouble())
                    .isGreaterThanOrEqualTo(bench.path("latency_p50").asDouble());
            assertThat(bench.path("throughput").isNull()).isTrue();
            http.get("/models/mini-lm").assertError(404, "model_not_found", "model_id");

            JsonNode tiny = http.get("/models/tiny-chat").json();
            assertThat(tiny.path("engine").asText()).isEqualTo("remote");
            assertThat(tiny.toString()).doesNotContain("sk-cloud-123");
            // the key reached the registry: a decision on the cloud model passes the endpoint's key check
            var decision = http.post("/v1/studio/decisions", """
                    {"model": "tiny-chat", "state": "The invoice is wrong.",
                     "questions": {"team": {"type": "choice", "criteria": ["billing", "tech"]}}}""");
            assertThat(decision.status()).as(decision.body()).isEqualTo(200);
            assertThat(cloud.requests()).isNotEmpty();

            String noKey = http.post("/pipelines", """
                    {"name": "no key", "steps": [{"id": "cloud", "action": "add_cloud_model",
                     "params": {"provider": "openai", "model_id": "x", "api_key": "missing-key"}}]}""").json().path("id").asText();
            String failedId = http.post("/pipelines/" + noKey + "/runs", "{}")
                    .json()
                    .path("id")
                    .asText();
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> http.get("/runs/" + failedId)
                            .json()
                            .path("status")
                            .asText()
                            .equals("failed"));
            assertThat(http.get("/runs/" + failedId).json().at("/error/code").asText())
                    .isEqualTo("credential_not_found");
        }
    }

    private static JsonNode step(JsonNode run, String id) {
        for (JsonNode step : run.path("steps")) {
            if (step.path("id").asText().equals(id)) {
                return step;
            }
        }
        throw new AssertionError("no step " + id);
    }
}
