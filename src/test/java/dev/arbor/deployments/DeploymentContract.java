package dev.arbor.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.ModelFileServer;
import dev.arbor.testing.OpenApiConformance;
import dev.arbor.testing.ProblemCodes;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TwoProjectsContract;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Deployments over HTTP, once per database: on Kubernetes (fabric8's API server mock) the objects are made with their
 * labels, the status follows the cluster's ready replicas and a delete removes them; a cluster refusal fails the
 * deployment and leaves nothing; every refusal names its param; members stay in their own projects; a cluster or a
 * model a deployment uses is not deleted; and the four pipeline actions run twice each.
 */
abstract class DeploymentContract extends TwoProjectsContract {
    static final String ADMIN_SECRET = "arb_deploy_admin";
    static final String NAMESPACE = "serving";
    private static final AtomicInteger NAMES = new AtomicInteger();

    KubernetesApiMock mock;
    KubernetesClient kube;
    String cluster;
    /** A model whose source is a GGUF file (the llama.cpp server's pods load it); not a zip, so its download fails. */
    String gguf;

    HttpServer files;

    DeploymentContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_TEST_MODELS", "true"));
    }

    @BeforeAll
    void start() {
        // one ready node: 8 processors, 32 GiB and one NVIDIA L4, what a pod's resources are checked against
        mock = new KubernetesApiMock().node("gpu-node", Map.of("Ready", "True"), "8", "32Gi", 1);
        kube = new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(mock.kubeconfig()))
                .build();
        cluster = created(http.post("/clusters", clusterBody("farm", mock.kubeconfig()), admin()), 201);
        files = ModelFileServer.start();
        gguf = created(
                http.post(
                        "/models",
                        "{\"model_uri\": \"http://127.0.0.1:"
                                + files.getAddress().getPort()
                                + "/files/tiny.gguf\", \"model_name\": \"Tiny GGUF\", \"model_source\": \"url\", "
                                + "\"engine\": \"hash\"}",
                        admin()),
                202);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/models/" + gguf, admin())
                        .json()
                        .path("status")
                        .asText()
                        .equals("failed"));
    }

    @AfterAll
    void stop() {
        files.stop(0);
        kube.close();
        mock.close();
    }

    @ParameterizedTest
    @ValueSource(strings = {"hash-decider", "minilm-decider"})
    void onThisMachineReplicasStartScaleAndStopWithTheDeployment(String model) throws Exception {
        String name = name();
        HttpReply accepted = http.post(
                "/deployments",
                "{\"name\": \"" + name + "\", \"model_id\": \"" + model + "\", \"replicas\": 2}",
                admin(mine));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        JsonNode pending = accepted.json();
        String id = pending.path("id").asText();
        assertThat(pending.path("status").asText()).isEqualTo("pending");
        assertThat(pending.path("cluster_id").asText()).isEqualTo("local");
        assertThat(pending.path("endpoint_url").asText()).endsWith(":" + http.port() + "/v1");

        List<String> streamed = events(id);
        assertThat(streamed.getLast()).as(String.join("\n", streamed)).contains("\"status\":\"running\"");
        JsonNode running = http.get("/deployments/" + id, admin()).json();
        assertThat(running.path("status").asText()).isEqualTo("running");
        assertThat(running.path("ready_replicas").asInt()).isEqualTo(2);
        List<Long> pids = pids(running);
        assertThat(pids).hasSize(2).allMatch(DeploymentContract::alive);

        HttpReply scaled = http.patch(
                "/deployments/" + id,
                "{\"replicas\": 1, \"rate_limit\": {\"algorithm\": \"token_bucket\", \"rate_limit\": 20, "
                        + "\"time_window\": \"minute\"}}",
                admin());
        assertThat(scaled.status()).as(scaled.body()).isEqualTo(202);
        assertThat(scaled.json().path("replicas").asInt()).isEqualTo(1);
        JsonNode one = awaitReady(id, 1);
        assertThat(one.path("status").asText()).isEqualTo("running");
        assertThat(one.path("rate_limit").path("rate_limit").asInt()).isEqualTo(20);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> pids.stream().filter(DeploymentContract::alive).count() == 1);

        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> pids.stream().noneMatch(DeploymentContract::alive));
        http.get("/deployments/" + id, admin()).assertError(404, "deployment_not_found", "deployment_id");
    }

    /** The events of a deployment's stream until it ends, as their data. */
    List<String> events(String id) throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(http.uri("/deployments/" + id + "/events"))
                .header("Authorization", "Bearer " + ADMIN_SECRET)
                .timeout(Duration.ofSeconds(120))
                .build();
        try (var client = java.net.http.HttpClient.newHttpClient()) {
            var response = client.send(request, java.net.http.HttpResponse.BodyHandlers.ofLines());
            assertThat(response.statusCode()).isEqualTo(200);
            var data = new ArrayList<String>();
            String event = "";
            for (String line : (Iterable<String>) response.body()::iterator) {
                if (line.startsWith("event: ")) {
                    event = line.substring("event: ".length());
                } else if (line.startsWith("data: ") && event.equals("deployment")) {
                    data.add(line.substring("data: ".length()));
                } else if (line.isEmpty() && event.equals("end")) {
                    break;
                }
            }
            return data;
        }
    }

    JsonNode awaitReady(String id, int ready) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode now = http.get("/deployments/" + id + "?wait=5", admin()).json();
            return now.path("status").asText().equals("running")
                    && now.path("ready_replicas").asInt() == ready;
        });
        return http.get("/deployments/" + id, admin()).json();
    }

    static List<Long> pids(JsonNode deployment) {
        var pids = new ArrayList<Long>();
        deployment.path("replicas_detail").forEach(r -> pids.add(r.path("pid").asLong()));
        return pids;
    }

    static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    @Test
    void onKubernetesTheObjectsCarryTheLabelsAndTheStatusFollowsTheReadyReplicas() {
        String name = name();
        HttpReply accepted = http.post(
                "/deployments",
                onCluster(
                        name,
                        ", \"replicas\": 2, \"auto_scaling\": {\"min_replicas\": 1, \"max_replicas\": 3, "
                                + "\"target_in_flight\": 4}"),
                admin(mine));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        assertThat(accepted.json().path("status").asText()).isEqualTo("pending");

        var labels = awaitObjectOf(name).getMetadata().getLabels();
        assertThat(labels).containsEntry("arbor.dev/deployment", id).containsEntry("arbor.dev/project", mine);
        JsonNode deploying = awaitStatus(id, "deploying");
        assertThat(kube.services().inNamespace(NAMESPACE).withName(name).get()).isNotNull();
        assertThat(kube.autoscaling()
                        .v2()
                        .horizontalPodAutoscalers()
                        .inNamespace(NAMESPACE)
                        .withName(name)
                        .get())
                .isNotNull();
        assertThat(deploying.path("ready_replicas").asInt()).isZero();
        assertThat(deploying.path("endpoint_url").asText()).isEqualTo("http://" + name + ".serving.svc:80/v1");

        readyReplicas(name, 2);
        JsonNode running = awaitStatus(id, "running");
        assertThat(running.path("ready_replicas").asInt()).isEqualTo(2);
        assertThat(running.path("progress").asInt()).isEqualTo(100);

        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
        assertThat(objectOf(name)).isNull();
        assertThat(kube.services().inNamespace(NAMESPACE).withName(name).get()).isNull();
        http.get("/deployments/" + id, admin()).assertError(404, "deployment_not_found", "deployment_id");
    }

    @Test
    void aClusterThatRefusesFailsTheDeploymentWithTheReasonAndKeepsNoObject() {
        String name = name();
        mock.answer("/api/v1/namespaces/" + NAMESPACE + "/services/" + name, 403, "services is forbidden");
        String id = deployedOnCluster(name, admin(mine));
        JsonNode failed = awaitStatus(id, "failed");
        assertThat(failed.path("error").asText()).contains("(403)", "Removed again what this call made");
        assertThat(objectOf(name)).isNull();
    }

    @Test
    void aClusterADeploymentRunsOnIsNotDeleted() {
        String name = name();
        String id = deployedOnCluster(name, admin(mine));
        JsonNode refused =
                http.delete("/clusters/" + cluster, admin()).assertError(409, "cluster_in_use", "cluster_id");
        assertThat(refused.path("message").asText()).contains(name);
        awaitStatus(id, "deploying");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void aModelADeploymentUsesIsNotDeleted() throws Exception {
        // a folder of its own: the size of a shared one (/tmp) is read while other programs change it
        Path folder = TempFolders.newFolder("arbor-hash-model-");
        String model = created(
                http.post(
                        "/models",
                        "{\"model_uri\": \"" + folder + "\", \"model_name\": \"Hash " + name()
                                + "\", \"model_source\": \"local\", \"engine\": \"hash\"}",
                        admin()),
                201);
        String name = name();
        String id = created(
                http.post("/deployments", "{\"name\": \"" + name + "\", \"model_id\": \"" + model + "\"}", admin(mine)),
                202);
        JsonNode refused = http.delete("/models/" + model, admin()).assertError(409, "in_use", "model_id");
        assertThat(refused.path("message").asText()).contains("deployment " + name);
        assertThat(refused.path("used_by").path(0).path("id").asText()).isEqualTo(id);
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
        assertThat(http.delete("/models/" + model, admin()).status()).isEqualTo(200);
        Files.deleteIfExists(folder);
    }

    @Test
    void aMemberSeesAndChangesOnlyItsOwnProjectsDeployments() {
        String theirsId = deployedOnCluster(name(), admin(theirs));
        String mineId = deployedOnCluster(name(), member(mine));
        http.get("/deployments/" + theirsId, member(mine)).assertError(404, "deployment_not_found", "deployment_id");
        http.patch("/deployments/" + theirsId, "{\"replicas\": 2}", member(mine))
                .assertError(404, "deployment_not_found", "deployment_id");
        http.delete("/deployments/" + theirsId, member(mine)).assertError(404, "deployment_not_found", "deployment_id");
        http.post("/deployments", "{\"name\": \"x\", \"model_id\": \"hash-decider\"}", member(theirs))
                .assertError(403, "project_forbidden", "X-Project-Id");
        List<String> listed = http.get("/deployments", member()).ids();
        assertThat(listed).contains(mineId).doesNotContain(theirsId);
        assertThat(http.get("/deployments", admin()).ids()).contains(mineId, theirsId);
        assertThat(http.delete("/deployments/" + theirsId, admin()).status()).isEqualTo(200);
        assertThat(http.delete("/deployments/" + mineId, member(mine)).status()).isEqualTo(200);
    }

    @Test
    void theRoutesAnswerAsTheOpenApiDocumentSays() {
        var api = new OpenApiConformance(http, "Authorization", "Bearer " + ADMIN_SECRET, "X-Project-Id", mine);
        HttpReply created = api.post(
                "/deployments",
                onCluster(
                        name(),
                        ", \"rate_limit\": {\"algorithm\": \"token_bucket\", \"rate_limit\": 3, "
                                + "\"time_window\": \"hour\"}"));
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().path("id").asText();
        api.get("/deployments");
        api.get("/deployments/" + id + "?wait=1");
        api.patch(
                "/deployments/" + id,
                "{\"auto_scaling\": {\"min_replicas\": 1, \"max_replicas\": 2, \"target_in_flight\": 8}}");
        api.post("/deployments", "{\"name\": \"Not A Label\"}");
        api.delete("/deployments/" + id);
        api.get("/deployments/" + id);
        assertThat(api.seen())
                .contains(
                        "POST /deployments 202",
                        "GET /deployments 200",
                        "GET /deployments/{deployment_id} 200",
                        "PATCH /deployments/{deployment_id} 202",
                        "POST /deployments 400",
                        "DELETE /deployments/{deployment_id} 200",
                        "GET /deployments/{deployment_id} 404");
    }

    @Test
    void aNameIsUniqueInItsProject() {
        String name = name();
        String body = onCluster(name, "");
        String id = created(http.post("/deployments", body, admin(mine)), 202);
        http.post("/deployments", body, admin(mine)).assertError(409, "deployment_exists", "name");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of("{\"model_id\": \"hash-decider\"}", 400, List.of("missing_field name")),
                Arguments.of(
                        "{\"name\": \"Web_1\", \"model_id\": \"hash-decider\", \"replicas\": 33}",
                        400,
                        List.of("invalid_field name", "invalid_field replicas")),
                Arguments.of(
                        "{\"name\": \"web\", \"replicas\": 0, \"auto_scaling\": {\"min_replicas\": 3, "
                                + "\"max_replicas\": 2}, \"rate_limit\": {\"algorithm\": \"leaky\", \"rate_limit\": 0, "
                                + "\"time_window\": \"day\"}, \"colour\": 1}",
                        400,
                        List.of(
                                "missing_field model_id",
                                "invalid_field replicas",
                                "missing_field auto_scaling.target_in_flight",
                                "invalid_field rate_limit.algorithm",
                                "invalid_field rate_limit.rate_limit",
                                "invalid_field rate_limit.time_window",
                                "invalid_field colour")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"hash-decider\", \"replicas\": 4, \"auto_scaling\": "
                                + "{\"min_replicas\": 1, \"max_replicas\": 2, \"target_in_flight\": 1}}",
                        400,
                        List.of("invalid_field replicas")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"hash-decider\", \"auto_scaling\": "
                                + "{\"min_replicas\": 3, \"max_replicas\": 2, \"target_in_flight\": 1}}",
                        400,
                        List.of("invalid_field auto_scaling.min_replicas")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"hash-decider\", \"resources\": {\"cpu\": 0, "
                                + "\"memory_bytes\": 1024, \"gpus\": 17, \"gpu_type\": \"A100 80GB\", \"disk\": 1}}",
                        400,
                        List.of(
                                "invalid_field resources.cpu",
                                "invalid_field resources.memory_bytes",
                                "invalid_field resources.gpus",
                                "invalid_field resources.gpu_type",
                                "invalid_field resources.disk")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"hash-decider\", \"resources\": {\"cpu\": 300, "
                                + "\"gpu_type\": \"NVIDIA-L4\"}}",
                        400,
                        List.of("invalid_field resources.cpu", "invalid_field resources.gpu_type")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"no-such-model\", \"cluster_id\": \"clu_none\"}",
                        404,
                        List.of("model_not_found model_id", "cluster_not_found cluster_id")),
                Arguments.of(
                        "{\"name\": \"web\", \"model_id\": \"hash-decider\", \"cluster_id\": \"clu_none\"}",
                        404,
                        List.of("cluster_not_found cluster_id")));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void everyProblemOfACreateIsListedWithItsParam(String body, int status, List<String> problems) {
        HttpReply refused = http.post("/deployments", body, admin(mine));
        assertThat(refused.status()).as(refused.body()).isEqualTo(status);
        assertThat(ProblemCodes.of(refused.json().path("error").path("details")))
                .containsExactlyInAnyOrderElementsOf(problems);
        assertThat(http.get("/deployments", admin(mine)).json().path("data").toString())
                .as("nothing of a refused create is kept")
                .doesNotContain("\"name\":\"web\"");
    }

    @Test
    void onKubernetesTheResourcesAskedAreEachPodsRequestsAndLimitsAndAChangeRollsThePods() {
        String name = name();
        HttpReply accepted = http.post("/deployments", """
                {"name": "%s", "model_id": "%s", "cluster_id": "%s",
                 "resources": {"cpu": 2.5, "memory_bytes": 4294967296}}""".formatted(name, gguf, cluster), admin(mine));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        String id = accepted.json().path("id").asText();
        assertThat(accepted.json().path("resources").toString())
                .isEqualTo("{\"cpu\":2.5,\"memory_bytes\":4294967296,\"gpus\":0,\"gpu_type\":null}");
        await().atMost(Duration.ofSeconds(30)).until(() -> container(name) != null);
        var asked = Map.of("cpu", new Quantity("2500m"), "memory", new Quantity("4294967296"));
        assertThat(container(name).getResources().getRequests()).isEqualTo(asked);
        assertThat(container(name).getResources().getLimits()).isEqualTo(asked);
        assertThat(container(name).getImage())
                .as("no GPUs: the llama.cpp server")
                .contains("llama.cpp");

        HttpReply changed = http.patch("/deployments/" + id, "{\"resources\": {\"cpu\": 4}}", admin());
        assertThat(changed.status()).as(changed.body()).isEqualTo(202);
        assertThat(changed.json().path("status").asText()).isEqualTo("deploying");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> container(name).getResources().getRequests().get("cpu"), new Quantity("4000m")::equals);
        assertThat(container(name).getResources().getRequests().get("memory"))
                .as("memory left out: the default")
                .isEqualTo(new Quantity(Long.toString(2L << 30)));
        assertThat(http.get("/deployments/" + id, admin())
                        .json()
                        .path("resources")
                        .toString())
                .isEqualTo("{\"cpu\":4.0,\"memory_bytes\":null,\"gpus\":0,\"gpu_type\":null}");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    static Stream<Arguments> beyondEveryNode() {
        return Stream.of(
                Arguments.of("{\"gpus\": 2}", "resources.gpus"),
                Arguments.of("{\"gpus\": 1, \"gpu_type\": \"NVIDIA-A100-SXM4-80GB\"}", "resources.gpus"),
                Arguments.of("{\"memory_bytes\": 68719476736}", "resources.memory_bytes"),
                Arguments.of("{\"cpu\": 16}", "resources.cpu"));
    }

    @ParameterizedTest
    @MethodSource("beyondEveryNode")
    void resourcesNoNodeOffersAreRefusedNamingTheResourceAndNothingIsMade(String resources, String param) {
        String name = name();
        JsonNode refused = http.post("/deployments", onCluster(name, ", \"resources\": " + resources), admin(mine))
                .assertError(409, "resources_unavailable", param);
        assertThat(refused.path("message").asText()).contains("no node of the cluster");
        assertThat(objectOf(name)).isNull();
        assertThat(http.get("/deployments", admin()).body()).doesNotContain(name);
    }

    @Test
    void aChangeToResourcesNoNodeOffersLeavesTheDeploymentAsItWas() {
        String id = deployedOnCluster(name(), admin(mine));
        http.patch("/deployments/" + id, "{\"resources\": {\"gpus\": 4}}", admin())
                .assertError(409, "resources_unavailable", "resources.gpus");
        assertThat(http.get("/deployments/" + id, admin())
                        .json()
                        .path("resources")
                        .isNull())
                .isTrue();
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void onThisMachineTheMemoryAskedIsEachReplicasHeapAndTheProcessorsWhatItsJvmCounts() {
        String id = created(
                http.post(
                        "/deployments",
                        "{\"name\": \"" + name() + "\", \"model_id\": \"hash-decider\", \"resources\": "
                                + "{\"cpu\": 1.5, \"memory_bytes\": 268435456}}",
                        admin(mine)),
                202);

        List<Long> pids = pids(awaitStatus(id, "running"));

        assertThat(pids).hasSize(1);
        assertThat(ProcessHandle.of(pids.getFirst())
                        .orElseThrow()
                        .info()
                        .arguments()
                        .orElseThrow())
                .contains("-Xmx268435456", "-XX:ActiveProcessorCount=2");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void onThisMachineGpusAreRefusedSinceItsReplicasRunOnItsProcessors() {
        http.post(
                        "/deployments",
                        "{\"name\": \"" + name() + "\", \"model_id\": \"hash-decider\", \"resources\": {\"gpus\": 1}}",
                        admin(mine))
                .assertError(409, "resources_unavailable", "resources.gpus");
    }

    @Test
    void anAdminDeploysInNoProjectWhereNamesAreUniqueAndMembersSeeNothingOfIt() {
        String name = name();
        String body = onCluster(name, "");
        HttpReply made = http.post("/deployments", body, admin());
        assertThat(made.status()).as(made.body()).isEqualTo(202);
        String id = made.json().path("id").asText();
        assertThat(made.json().path("project_id").isNull()).isTrue();
        http.post("/deployments", body, admin()).assertError(409, "deployment_exists", "name");

        assertThat(http.get("/deployments", admin()).ids()).contains(id);
        assertThat(http.get("/deployments", admin(mine)).ids()).doesNotContain(id);
        assertThat(http.get("/deployments", member()).ids()).doesNotContain(id);
        http.get("/deployments/" + id, member()).assertError(404, "deployment_not_found", "deployment_id");
        http.get("/deployments/" + id, admin(mine)).assertError(404, "deployment_not_found", "deployment_id");
        http.post("/deployments", "{\"name\": \"" + name() + "\", \"model_id\": \"hash-decider\"}", member())
                .assertError(400, "missing_field", "project_id");
        // the cluster's objects are made after the 202, in the background
        var workload = await().atMost(Duration.ofSeconds(30)).until(() -> objectOf(name), Objects::nonNull);
        assertThat(workload.getMetadata().getLabels())
                .containsEntry("arbor.dev/deployment", id)
                .doesNotContainKey("arbor.dev/project");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void onlyAnAdminNamingNoProjectCallsADeploymentInNoProject() {
        String name = name();
        String id = created(
                http.post("/deployments", "{\"name\": \"" + name + "\", \"model_id\": \"hash-decider\"}", admin()),
                202);
        awaitStatus(id, "running");
        String call = "{\"model\": \"" + name + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";

        HttpReply asAdmin = http.post("/v1/chat/completions", call, admin());
        HttpReply asAdminInAProject = http.post("/v1/chat/completions", call, admin(mine));
        HttpReply asMember = http.post("/v1/chat/completions", call, member());

        // found, and refused for what it is: the hash model scores, it does not write
        assertThat(asAdmin.json().path("error").path("code").asText())
                .as(asAdmin.body())
                .isEqualTo("model_capability_unsupported");
        assertThat(asAdminInAProject.status()).isEqualTo(404);
        assertThat(asAdminInAProject.json().path("error").path("code").asText()).isEqualTo("model_not_found");
        assertThat(asMember.status()).isEqualTo(404);
        assertThat(asMember.json().path("error").path("code").asText()).isEqualTo("model_not_found");
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void aPipelineWithoutAProjectDeploysScalesLimitsAndDeletesADeploymentInNoProject() {
        String name = name();
        String pipeline = created(http.post("/pipelines", """
                        {"name": "%s", "steps": [
                          {"id": "deploy", "action": "deploy_model", "timeout_seconds": 60,
                           "params": {"model_id": "%s", "cluster_id": "%s", "deployment_name": "%s"}},
                          {"id": "scale", "action": "scale_deployment", "depends_on": ["deploy"],
                           "params": {"deployment_id": "{{ steps.deploy.outputs.deployment_id }}", "replicas": 2}},
                          {"id": "limit", "action": "configure_rate_limiting", "depends_on": ["scale"],
                           "params": {"deployment_id": "{{ steps.deploy.outputs.deployment_id }}",
                                      "rate_limit": 10, "time_window": "second", "algorithm": "fixed_window"}},
                          {"id": "delete", "action": "delete_deployment", "depends_on": ["limit"],
                           "params": {"deployment_id": "{{ steps.deploy.outputs.deployment_id }}"}}]}""".formatted(name, gguf, cluster, name), admin()), 201);
        var labels = new AtomicReference<Map<String, String>>();
        Thread ready = Thread.ofVirtual().start(() -> {
            labels.set(awaitObjectOf(name).getMetadata().getLabels());
            readyReplicas(name, 1);
        });
        JsonNode run = finished(pipeline);
        assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
        JsonNode deployed = step(run, "deploy").path("outputs");
        String id = deployed.path("deployment_id").asText();
        assertThat(id).startsWith("dep");
        assertThat(deployed.path("status").asText()).isEqualTo("running");
        assertThat(deployed.path("endpoint_url").asText()).isEqualTo("http://" + name + ".serving.svc:80/v1");
        assertThat(step(run, "scale").path("outputs").toString())
                .isEqualTo("{\"previous_replicas\":1,\"current_replicas\":2}");
        assertThat(step(run, "limit").path("status").asText()).isEqualTo("completed");
        assertThat(step(run, "delete").path("status").asText()).isEqualTo("completed");
        assertThat(labels.get()).as("in no project").doesNotContainKey("arbor.dev/project");
        http.get("/deployments/" + id, admin()).assertError(404, "deployment_not_found", "deployment_id");
        assertThat(objectOf(name)).isNull();
        ready.interrupt();
    }

    Container container(String name) {
        var deployment = objectOf(name);
        return deployment == null
                ? null
                : deployment.getSpec().getTemplate().getSpec().getContainers().getFirst();
    }

    @Test
    void aModelTheClustersServerCannotLoadIsRefusedAtOnce() {
        http.post(
                        "/deployments",
                        "{\"name\": \"" + name() + "\", \"model_id\": \"hash-decider\", \"cluster_id\": \"" + cluster
                                + "\"}",
                        admin(mine))
                .assertError(400, "model_format_unsupported", "model_id");
    }

    @Test
    void aModelWithoutItsFilesIsNotDeployedOnThisMachine() {
        http.post("/deployments", "{\"name\": \"" + name() + "\", \"model_id\": \"" + gguf + "\"}", admin(mine))
                .assertError(409, "model_not_downloaded", "model_id");
    }

    @Test
    void aChangeAndAReadNameTheirParams() {
        String id = deployedOnCluster(name(), admin(mine));
        http.patch("/deployments/" + id, "{\"replicas\": 99}", admin()).assertError(400, "invalid_field", "replicas");
        http.patch("/deployments/" + id, "{\"rate_limit\": {\"algorithm\": \"fixed_window\"}}", admin())
                .assertError(400, "missing_field", "rate_limit.rate_limit");
        http.get("/deployments/" + id + "?wait=61", admin()).assertError(400, "invalid_parameter", "wait");
        HttpReply limited = http.patch(
                "/deployments/" + id,
                "{\"rate_limit\": {\"algorithm\": \"fixed_window\", \"rate_limit\": 5, \"time_window\": \"second\"}}",
                admin());
        assertThat(limited.status()).as(limited.body()).isEqualTo(202);
        assertThat(limited.json().path("rate_limit").toString())
                .isEqualTo("{\"algorithm\":\"fixed_window\",\"rate_limit\":5,\"time_window\":\"second\"}");
        assertThat(http.patch("/deployments/" + id, "{\"rate_limit\": null}", admin())
                        .json()
                        .path("rate_limit")
                        .isNull())
                .isTrue();
        assertThat(http.delete("/deployments/" + id, admin()).status()).isEqualTo(200);
    }

    @Test
    void theFourPipelineActionsRunTwiceWithTheSameOutcome() {
        String name = name();
        String pipeline =
                created(http.post("/pipelines", """
                        {"name": "%s", "steps": [
                          {"id": "deploy", "action": "deploy_model", "timeout_seconds": 60,
                           "params": {"model_id": "%s", "cluster_id": "%s", "deployment_name": "%s",
                                      "project_id": "%s"}},
                          {"id": "scale", "action": "scale_deployment", "depends_on": ["deploy"],
                           "params": {"deployment_id": "{{ steps.deploy.outputs.deployment_id }}", "replicas": 3}},
                          {"id": "limit", "action": "configure_rate_limiting", "depends_on": ["scale"],
                           "params": {"deployment_id": "%s", "rate_limit": 10, "time_window": "second"}}]}""".formatted(name, gguf, cluster, name, mine, name), admin()), 201);
        Thread ready = Thread.ofVirtual().start(() -> {
            awaitObjectOf(name);
            readyReplicas(name, 1);
        });
        JsonNode first = finished(pipeline);
        assertThat(first.path("status").asText()).as(first.toString()).isEqualTo("completed");
        JsonNode deployed = step(first, "deploy").path("outputs");
        assertThat(deployed.path("status").asText()).isEqualTo("running");
        assertThat(deployed.path("endpoint_url").asText()).isEqualTo("http://" + name + ".serving.svc:80/v1");
        String id = deployed.path("deployment_id").asText();
        assertThat(step(first, "scale").path("outputs").toString())
                .isEqualTo("{\"previous_replicas\":1,\"current_replicas\":3}");
        JsonNode deployment = http.get("/deployments/" + id, admin(mine)).json();
        assertThat(deployment.path("project_id").asText()).isEqualTo(mine);
        assertThat(deployment.path("replicas").asInt()).isEqualTo(3);
        assertThat(deployment.path("rate_limit").path("rate_limit").asInt()).isEqualTo(10);
        assertThat(objectOf(name).getSpec().getReplicas()).isEqualTo(3);

        readyReplicas(name, 3);
        awaitStatus(id, "running");
        JsonNode second = finished(pipeline);
        assertThat(second.path("status").asText()).as(second.toString()).isEqualTo("completed");
        assertThat(step(second, "deploy").path("outputs").path("deployment_id").asText())
                .as("a deployment of that name counts as deployed")
                .isEqualTo(id);
        assertThat(step(second, "scale").path("outputs").toString())
                .isEqualTo("{\"previous_replicas\":3,\"current_replicas\":3}");
        assertThat(http.get("/deployments", admin(mine)).ids()).containsOnlyOnce(id);

        String deleting = created(http.post("/pipelines", """
                        {"name": "%s-delete", "steps": [
                          {"id": "delete", "action": "delete_deployment", "params": {"deployment_id": "%s"}}]}""".formatted(name, id), admin()), 201);
        assertThat(finished(deleting).path("status").asText()).isEqualTo("completed");
        http.get("/deployments/" + id, admin()).assertError(404, "deployment_not_found", "deployment_id");
        assertThat(objectOf(name)).isNull();
        assertThat(finished(deleting).path("status").asText())
                .as("one gone counts as deleted")
                .isEqualTo("completed");
        ready.interrupt();
    }

    @Test
    void aDeployStepFailsWithTheReasonOfAFailedDeployment() {
        String name = name();
        mock.answer("/api/v1/namespaces/" + NAMESPACE + "/services/" + name, 403, "services is forbidden");
        String pipeline =
                created(http.post("/pipelines", """
                        {"name": "%s", "steps": [
                          {"id": "deploy", "action": "deploy_model",
                           "params": {"model_id": "%s", "cluster_id": "%s", "deployment_name": "%s",
                                      "project_id": "%s"}}]}""".formatted(name, gguf, cluster, name, mine), admin()), 201);
        JsonNode run = finished(pipeline);
        assertThat(run.path("status").asText()).isEqualTo("failed");
        assertThat(step(run, "deploy").at("/error/code").asText()).isEqualTo("deployment_failed");
        assertThat(step(run, "deploy").at("/error/message").asText()).contains("(403)");
    }

    /** Sets the ready replicas the cluster reports for a Deployment, as its controller would. */
    void readyReplicas(String name, int ready) {
        kube.apps()
                .deployments()
                .inNamespace(NAMESPACE)
                .withName(name)
                .edit(d -> new DeploymentBuilder(d)
                        .editOrNewStatus()
                        .withReadyReplicas(ready)
                        .withReplicas(ready)
                        .endStatus()
                        .build());
    }

    JsonNode awaitStatus(String id, String status) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> http.get("/deployments/" + id + "?wait=5", admin())
                        .json()
                        .path("status")
                        .asText()
                        .equals(status));
        return http.get("/deployments/" + id, admin()).json();
    }

    JsonNode finished(String pipeline) {
        String runId = http.post("/pipelines/" + pipeline + "/runs", "{}", admin())
                .json()
                .path("id")
                .asText();
        await().atMost(Duration.ofSeconds(120))
                .until(() -> !http.get("/runs/" + runId, admin())
                        .json()
                        .path("status")
                        .asText()
                        .matches("queued|running"));
        return http.get("/runs/" + runId, admin()).json();
    }

    static JsonNode step(JsonNode run, String id) {
        for (JsonNode step : run.path("steps")) {
            if (step.path("id").asText().equals(id)) {
                return step;
            }
        }
        throw new AssertionError("no step " + id + " in " + run);
    }

    static String name() {
        return "dep-" + NAMES.incrementAndGet() + "-" + Long.toString(System.nanoTime() % 100_000, 36);
    }

    /** The Kubernetes Deployment of the deployment {@code name} on the mock cluster; null while there is none. */
    private io.fabric8.kubernetes.api.model.apps.Deployment objectOf(String name) {
        return kube.apps().deployments().inNamespace(NAMESPACE).withName(name).get();
    }

    /** The Kubernetes Deployment of {@code name}, once the deployment's work in the background has made it. */
    private io.fabric8.kubernetes.api.model.apps.Deployment awaitObjectOf(String name) {
        await().atMost(Duration.ofSeconds(30)).until(() -> objectOf(name) != null);
        return objectOf(name);
    }

    /** The body of a deployment of the GGUF model on the mock cluster called {@code name}, then {@code more} fields. */
    private String onCluster(String name, String more) {
        return "{\"name\": \"" + name + "\", \"model_id\": \"" + gguf + "\", \"cluster_id\": \"" + cluster + "\"" + more
                + "}";
    }

    /** A deployment of the GGUF model on the mock cluster that {@code caller} made (202); its id. */
    private String deployedOnCluster(String name, String[] caller) {
        return created(http.post("/deployments", onCluster(name, ""), caller), 202);
    }

    static String created(HttpReply reply, int status) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        return reply.json().path("id").asText();
    }

    static String clusterBody(String name, String kubeconfig) {
        return Json.writeString(Map.of("name", name, "kubeconfig", kubeconfig));
    }

    static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET};
    }

    static String[] admin(String project) {
        return new String[] {"Authorization", "Bearer " + ADMIN_SECRET, "X-Project-Id", project};
    }

    String[] member() {
        return new String[] {"Authorization", "Bearer " + memberSecret};
    }

    String[] member(String project) {
        return new String[] {"Authorization", "Bearer " + memberSecret, "X-Project-Id", project};
    }
}
