package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.models.TestHub;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Models, Deployments and Clusters pages in a real browser against a real server: the bundled embedding model in
 * the registry and in a worker with its log, a deployment of it made on the page and followed live until it runs,
 * scaled, rate-limited, refused deletion while a router uses it and deleted, the local cluster's health, and what a
 * member is offered. Each step is asserted on what the page shows (scenarios/models.mjs), then on what the server
 * holds.
 */
class ConsoleModelsBrowserTest {
    private static final String MODEL_ID = "minilm-decider";
    private static final String MODEL = "MiniLM decider (bundled)";

    private static TestHub hub;
    private static ArborServer server;
    private static TestServer http;
    private static ConsoleBrowser browser;
    private static String[] admin;
    private static String adminToken;
    private static String memberToken;
    private static String projectId;

    @BeforeAll
    static void start() throws Exception {
        hub = new TestHub().withMiniLm("test/minilm");
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_MODEL_HUB_URL", hub.url()));
        http = server.http();
        browser = ConsoleBrowser.forServer(http, "models");
        projectId = ConsoleBrowser.project(http, "serving");
        adminToken = ConsoleBrowser.adminToken(http);
        admin = ConsoleBrowser.bearer(adminToken);
        memberToken = ConsoleBrowser.memberToken(http, adminToken, projectId);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (hub != null) {
            hub.close();
        }
    }

    @Test
    void theBundledModelIsInTheRegistryAndLoadsInAWorkerWhoseLogThePageShows() throws Exception {
        JsonNode shown = browser.run(
                "model-registry",
                Map.of("token", adminToken, "project", "serving", "model", MODEL, "modelId", MODEL_ID));
        JsonNode loaded = http.get("/models/" + MODEL_ID, admin).json();
        assertThat(loaded.path("status").asText()).isEqualTo("loaded");
        assertThat(loaded.path("worker_pid").asLong())
                .isEqualTo(shown.path("pid").asLong());
        assertThat(alive(shown.path("pid").asLong())).isTrue();

        browser.run("unload-model", Map.of("token", adminToken, "project", "serving", "model", MODEL));
        JsonNode unloaded = http.get("/models/" + MODEL_ID, admin).json();
        assertThat(unloaded.path("status").asText()).isEqualTo("downloaded");
        assertThat(unloaded.has("worker_pid")).isFalse();
    }

    @Test
    void theBuiltInModelIsNotOfferedForDeletionWhichTheServerRefuses() throws Exception {
        browser.run("built-in-model-kept", Map.of("token", adminToken, "model", MODEL));
        assertThat(http.get("/models/" + MODEL_ID, admin).json().path("source").asText())
                .isEqualTo("builtin");
        http.delete("/models/" + MODEL_ID, admin).assertError(409, "model_built_in", "model_id");
    }

    @Test
    void aModelRegisteredFromTheHubShowsItsDownloadsProgressUntilItIsDownloaded() throws Exception {
        hub.pauseMillisPerChunk = 30; // about ten seconds for the MiniLM's files
        JsonNode shown = browser.run(
                "download-model", Map.of("token", adminToken, "repository", "test/minilm", "name", "Hub MiniLM"));
        JsonNode model = http.get("/models/hub-minilm", admin).json();
        assertThat(model.path("status").asText()).isEqualTo("downloaded");
        assertThat(model.path("source").asText()).isEqualTo("model_hub");
        assertThat(shown.path("max").asLong())
                .isEqualTo(model.path("size_bytes").asLong());
        assertThat(shown.path("value").asLong()).isBetween(0L, shown.path("max").asLong());
    }

    @Test
    void aDeploymentMadeOnThePageRunsScalesTakesARateLimitAndIsDeleted() throws Exception {
        String name = "embed-console";
        var args = Map.<String, Object>of("token", adminToken, "project", "serving", "name", name);
        JsonNode deployed = browser.run(
                "deploy-model", with(args, Map.of("modelId", MODEL_ID, "endpoint", ":" + http.port() + "/v1")));
        String id = deployed.path("id").asText();
        assertThat(deployed.path("first").asText())
                .as("the page showed the deployment before it ran, then followed it")
                .isIn("pending", "deploying");
        JsonNode running = http.get("/deployments/" + id, admin).json();
        assertThat(running.path("name").asText()).isEqualTo(name);
        assertThat(running.path("project_id").asText()).isEqualTo(projectId);
        assertThat(running.path("cluster_id").asText()).isEqualTo("local");
        assertThat(running.path("status").asText()).isEqualTo("running");
        assertThat(running.path("replicas").asInt()).isEqualTo(1);
        assertThat(running.path("ready_replicas").asInt()).isEqualTo(1);

        browser.run("scale-deployment", args);
        JsonNode scaled = http.get("/deployments/" + id, admin).json();
        assertThat(scaled.path("replicas").asInt()).isEqualTo(2);
        assertThat(scaled.path("ready_replicas").asInt()).isEqualTo(2);
        List<Long> pids = pids(scaled);
        assertThat(pids).hasSize(2).allMatch(ConsoleModelsBrowserTest::alive);

        browser.run("rate-limit-deployment", with(args, Map.of("rate", 20)));
        assertThat(http.get("/deployments/" + id, admin).json().path("rate_limit"))
                .hasToString("{\"algorithm\":\"fixed_window\",\"rate_limit\":20,\"time_window\":\"minute\"}");

        String router = router("to-console", id);
        JsonNode refused = browser.run("delete-deployment-in-use", with(args, Map.of("router", "to-console")));
        assertThat(refused.path("message").asText()).contains("is used by");
        assertThat(http.get("/deployments/" + id, admin).status()).isEqualTo(200);
        assertThat(http.delete("/routers/" + router, admin).status()).isEqualTo(200);

        browser.run("delete-deployment", args);
        http.get("/deployments/" + id, admin).assertError(404, "deployment_not_found", "deployment_id");
        await().atMost(Duration.ofSeconds(30)).until(() -> pids.stream().noneMatch(ConsoleModelsBrowserTest::alive));
    }

    @Test
    void theLocalClustersHealthIsShownAsTheServerCountsIt() throws Exception {
        JsonNode shown = browser.run("local-cluster-health", Map.of("token", adminToken));
        JsonNode health = http.get("/clusters/local/health", admin).json();
        assertThat(shown.path("status").asText()).isIn("healthy", "degraded", "unhealthy");
        assertThat(shown.path("nodes").asText())
                .isEqualTo(health.path("node_count").asText());
        assertThat(Double.parseDouble(shown.path("cpu").asText()))
                .isEqualTo(health.at("/available_resources/cpu").asDouble());
        JsonNode gpus = health.at("/available_resources/gpus");
        if (gpus.isEmpty()) {
            assertThat(shown.path("gpus").asText()).isEqualTo("none");
        } else {
            assertThat(shown.path("gpus").asText())
                    .contains(gpus.get(0).path("name").asText());
        }
    }

    @Test
    void aKubernetesClusterIsAddedWithAMaskedKubeconfigShowsItsHealthAndIsDeleted() throws Exception {
        try (var mock = new KubernetesApiMock()
                .node("gpu-1", Map.of("Ready", "True"), "4", "16Gi", 1)
                .node("cpu-1", Map.of("Ready", "False"), "4", "16Gi", 0)) {
            JsonNode shown = browser.run(
                    "kubernetes-cluster",
                    Map.of(
                            "token",
                            adminToken,
                            "name",
                            "farm",
                            "kubeconfig",
                            mock.kubeconfig(),
                            "reason",
                            "node cpu-1 is not ready"));
            assertThat(shown.path("status").asText()).isEqualTo("degraded");
            assertThat(shown.path("gpus").asText()).contains("NVIDIA-L4");
            assertThat(http.get("/clusters", admin).json().path("data").findValuesAsText("name"))
                    .containsExactly("local");
        }
    }

    @Test
    void aMemberSeesItsProjectsDeploymentsAndIsNotOfferedTheAdminsActions() throws Exception {
        HttpReply created = http.post(
                "/deployments",
                "{\"name\": \"members-own\", \"model_id\": \"" + MODEL_ID + "\"}",
                TestServer.with(admin, "X-Project-Id", projectId));
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        try {
            browser.run("member-models", Map.of("token", memberToken, "name", "members-own"));
        } finally {
            http.delete("/deployments/" + created.json().path("id").asText(), admin);
        }
    }

    /** An active router in the project whose one step sends to the deployment. */
    private static String router(String name, String deploymentId) {
        HttpReply created = http.post("/routers", """
                {"project_id": "%s", "name": "%s", "dag_config": {"entry_step": "go", "steps": [
                  {"step_id": "go", "action_type": "single_endpoint", "params": {"endpoint": "%s"}}]}}""".formatted(projectId, name, deploymentId), admin);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    private static Map<String, Object> with(Map<String, Object> args, Map<String, Object> more) {
        var all = new HashMap<>(args);
        all.putAll(more);
        return all;
    }

    private static List<Long> pids(JsonNode deployment) {
        var pids = new ArrayList<Long>();
        deployment.path("replicas_detail").forEach(r -> pids.add(r.path("pid").asLong()));
        return pids;
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
