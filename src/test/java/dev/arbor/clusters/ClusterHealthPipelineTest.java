package dev.arbor.clusters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Cluster Health Check in real pipeline runs: this machine and a Kubernetes cluster (fabric8's API server mock) give
 * their status, node count and resources as outputs, later steps branch on them, and an unknown cluster fails its
 * step with {@code cluster_not_found}.
 */
class ClusterHealthPipelineTest {
    @Test
    void aPipelineChecksClustersAndActsOnTheirHealth() {
        try (var mock = new KubernetesApiMock()
                        .node("gpu-1", Map.of("Ready", "True"), "8", "32Gi", 1)
                        .node("gpu-2", Map.of("Ready", "False"), "8", "32Gi", 1);
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String cluster = http.post("/clusters", ClustersTest.body("farm", mock.kubeconfig()))
                    .json()
                    .path("id")
                    .asText();
            String pipeline = http.post("/pipelines", """
                    {"name": "capacity", "parameters": [{"name": "cluster", "type": "cluster_ref", "required": true}],
                     "steps": [
                       {"id": "here", "action": "cluster_health_check", "params": {"cluster_id": "local"}},
                       {"id": "farm", "action": "cluster_health_check",
                        "params": {"cluster_id": "{{ params.cluster }}", "timeout_seconds": 20}},
                       {"id": "page", "action": "log", "depends_on": ["farm"],
                        "condition": "steps.farm.outputs.status != 'healthy'",
                        "params": {"message": "farm is {{ steps.farm.outputs.status }}", "level": "warning"}}]}""").json().path("id").asText();
            JsonNode run = finished(http, pipeline, "{\"params\": {\"cluster\": \"" + cluster + "\"}}");
            assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");

            JsonNode here = step(run, "here").path("outputs");
            assertThat(here.path("status").asText()).isIn("healthy", "degraded", "unhealthy");
            assertThat(here.path("node_count").asInt()).isEqualTo(1);
            assertThat(here.at("/available_resources/cpu").asDouble()).isGreaterThanOrEqualTo(1);
            assertThat(here.at("/available_resources/memory_bytes").asLong()).isPositive();

            JsonNode farm = step(run, "farm").path("outputs");
            assertThat(farm.path("status").asText()).isEqualTo("degraded");
            assertThat(farm.path("node_count").asInt()).isEqualTo(2);
            assertThat(farm.at("/available_resources/cpu").asDouble()).isEqualTo(8);
            assertThat(farm.at("/available_resources/memory_bytes").asLong()).isEqualTo(32L << 30);
            assertThat(farm.at("/available_resources/gpus/0/name").asText()).isEqualTo("NVIDIA-L4");
            assertThat(farm.at("/available_resources/gpus")).hasSize(1);
            assertThat(farm.path("reasons").toString()).contains("node gpu-2 is not ready");
            assertThat(step(run, "page").path("status").asText()).isEqualTo("completed");
        }
    }

    @Test
    void anUnknownClusterFailsTheStep() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String pipeline = http.post("/pipelines", """
                    {"name": "nowhere", "steps": [
                       {"id": "check", "action": "cluster_health_check", "params": {"cluster_id": "clu_missing"}}]}""").json().path("id").asText();
            JsonNode run = finished(http, pipeline, "{}");
            assertThat(run.path("status").asText()).isEqualTo("failed");
            assertThat(step(run, "check").at("/error/code").asText()).isEqualTo("cluster_not_found");
            assertThat(step(run, "check").at("/error/message").asText()).contains("clu_missing");
        }
    }

    private static JsonNode finished(TestServer http, String pipeline, String body) {
        String runId = http.post("/pipelines/" + pipeline + "/runs", body)
                .json()
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> !http.get("/runs/" + runId)
                        .json()
                        .path("status")
                        .asText()
                        .matches("queued|running"));
        return http.get("/runs/" + runId).json();
    }

    private static JsonNode step(JsonNode run, String id) {
        for (JsonNode step : run.path("steps")) {
            if (step.path("id").asText().equals(id)) {
                return step;
            }
        }
        throw new AssertionError("no step " + id + " in " + run);
    }
}
