package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.KubernetesApiMock;
import dev.arbor.testing.ModelFileServer;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TwoProjects;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Deployments on the inference surface through the real API: a request's {@code model} finds a running deployment in
 * the caller's projects, a deployment's rate limit answers 429 with its headers, routers name deployments as
 * endpoints ({@code single_endpoint}, {@code local_model}), {@code /v1/decide} refuses a deployment that cannot
 * decide, and a deployment whose pods are not ready yet answers 503 {@code deployment_not_ready}. The deployments run on Kubernetes (fabric8's API server mock), whose Services this server cannot reach: an
 * answer routed there is 502 {@code upstream_unavailable}, which shows where it went.
 */
class DeploymentEndpointsTest {
    private static final String ADMIN = "admin-secret-1";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static ArborServer server;
    private static TestServer http;
    private static KubernetesApiMock mock;
    private static KubernetesClient kube;
    private static String mine;
    private static String theirs;
    private static String member;
    private static String cluster;
    private static String model;
    private static HttpServer files;

    @BeforeAll
    static void start() {
        server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN", ADMIN,
                "ARBOR_OUTBOUND_ALLOW", "127.0.0.1",
                "ARBOR_TEST_MODELS", "true",
                "ARBOR_ROUTING_TIMEOUT_SECONDS", "2"));
        http = server.http();
        var projects = TwoProjects.create(http, ADMIN);
        mine = projects.mine();
        theirs = projects.theirs();
        member = projects.memberSecret();
        mock = new KubernetesApiMock();
        kube = new KubernetesClientBuilder()
                .withConfig(Config.fromKubeconfig(mock.kubeconfig()))
                .build();
        cluster = id(http.post(
                "/clusters", Json.writeString(Map.of("name", "farm", "kubeconfig", mock.kubeconfig())), admin()));
        // a Kubernetes deployment needs no files here: a GGUF model the registry has (its load fails) will do
        files = ModelFileServer.start();
        model = id(http.post(
                "/models",
                "{\"model_uri\": \"http://127.0.0.1:" + files.getAddress().getPort() + "/files/tiny.gguf\", "
                        + "\"model_name\": \"Tiny GGUF\", \"model_source\": \"url\", \"engine\": \"hash\"}",
                admin()));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.get("/models/" + model, admin())
                        .json()
                        .path("status")
                        .asText()
                        .equals("failed"));
    }

    @AfterAll
    static void stop() {
        server.close();
        files.stop(0);
        kube.close();
        mock.close();
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN};
    }

    private static String id(HttpReply reply) {
        assertThat(reply.status()).as(reply.body()).isBetween(200, 202);
        return reply.json().path("id").asText();
    }

    /** A running deployment of {@link #model} on the mock cluster in {@code project}; its id. */
    private static String running(String project, String name, String rateLimit) {
        String id = deploy(project, name, model, cluster, rateLimit);
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .until(() -> kube.apps()
                                .deployments()
                                .inNamespace("serving")
                                .withName(name)
                                .get()
                        != null);
        kube.apps()
                .deployments()
                .inNamespace("serving")
                .withName(name)
                .edit(d -> new DeploymentBuilder(d)
                        .editOrNewStatus()
                        .withReadyReplicas(1)
                        .withReplicas(1)
                        .endStatus()
                        .build());
        StatusWaits.until(http, "/deployments/" + id + "?wait=5", "running", Duration.ofSeconds(60), admin());
        return id;
    }

    private static String deploy(String project, String name, String model, String cluster, String rateLimit) {
        return id(http.post(
                "/deployments",
                "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"model_id\": \"" + model
                        + "\", \"cluster_id\": \"" + cluster + "\"" + rateLimit + "}",
                admin()));
    }

    /** A running deployment of the test models' hash decider on this server, with this rate limit; its name. */
    private static String runningDecider(String rateLimit) {
        String name = name();
        String id = deploy(mine, name, "hash-decider", "local", rateLimit);
        StatusWaits.until(http, "/deployments/" + id + "?wait=5", "running", Duration.ofSeconds(120), admin());
        return name;
    }

    private static HttpReply decide(String model) {
        return http.post(
                "/v1/decide",
                "{\"model\": \"" + model + "\", \"state\": \"My invoice shows a double charge.\", \"questions\": "
                        + "{\"team\": {\"type\": \"choice\", \"criteria\": {\"billing\": \"charges\", \"tech\": "
                        + "\"errors\"}}}}",
                admin());
    }

    private static String name() {
        return "dep-" + NAMES.incrementAndGet();
    }

    private static HttpReply chat(String model, String token) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + token);
    }

    private static String router(String steps) {
        String first = steps.replaceFirst("(?s).*?\"step_id\":\\s*\"([^\"]+)\".*", "$1");
        HttpReply created = http.post(
                "/routers",
                "{\"project_id\": \"" + mine + "\", \"name\": \"" + name() + "\", \"dag_config\": {\"entry_step\": \""
                        + first + "\", \"steps\": [" + steps + "]}}",
                admin());
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("status").asText()).isEqualTo("active");
        return created.json().path("id").asText();
    }

    @Test
    void aRequestNamingARunningDeploymentGoesToIt() {
        String name = name();
        String id = running(mine, name, "");

        HttpReply answer = chat(name, member);

        answer.assertError(502, "upstream_unavailable", null);
        assertThat(answer.header("x-router-endpoint")).isEqualTo(id);
    }

    @Test
    void aDeploymentWhosePodsAreNotReadyYetAnswers503ToComeBack() {
        String name = name();
        deploy(mine, name, model, cluster, "");

        HttpReply waiting = chat(name, member);

        waiting.assertError(503, "deployment_not_ready", "model");
        assertThat(waiting.header("retry-after")).isEqualTo("1");
    }

    @Test
    void decideOnADeploymentWhosePodsAreNotReadyYetAnswers503ToComeBack() {
        String name = name();
        deploy(mine, name, model, cluster, "");

        HttpReply waiting = decide(name);

        waiting.assertError(503, "deployment_not_ready", "model");
        assertThat(waiting.header("retry-after")).isEqualTo("1");
    }

    @Test
    void anotherProjectsDeploymentIsNotFound() {
        String name = name();
        String id = running(theirs, name, "");

        chat(name, member).assertError(404, "model_not_found", "model");
        chat(id, member).assertError(404, "model_not_found", "model");
    }

    @Test
    void aRateLimitedDeploymentAnswers429WithItsHeadersPastItsLimit() {
        String name = name();
        running(
                mine,
                name,
                ", \"rate_limit\": {\"algorithm\": \"fixed_window\", \"rate_limit\": 1, \"time_window\": \"hour\"}");

        HttpReply first = chat(name, member);
        HttpReply refused = chat(name, member);

        assertThat(first.header("x-ratelimit-limit")).as(first.body()).isEqualTo("1");
        assertThat(first.header("x-ratelimit-remaining")).isEqualTo("0");
        assertThat(Long.parseLong(first.header("x-ratelimit-reset"))).isBetween(3590L, 3600L);
        refused.assertError(429, "rate_limited", null);
        assertThat(refused.header("x-ratelimit-limit")).isEqualTo("1");
        assertThat(refused.header("x-ratelimit-remaining")).isEqualTo("0");
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(3590L, 3600L);
    }

    @Test
    void aRouterSendsASingleEndpointThatIsADeploymentThere() {
        String id = running(mine, name(), "");
        String router = router("{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": "
                + "{\"endpoint\": \"" + id + "\"}}");

        HttpReply answer = chat(router, member);

        answer.assertError(502, "upstream_unavailable", null);
        assertThat(answer.header("x-router-endpoint")).isEqualTo(id);
        assertThat(answer.header("x-router-id")).isEqualTo(router);
    }

    @Test
    void aDeploymentAnActiveRouterSendsToIsNotDeletedUnlessForced() {
        String id = running(mine, name(), "");
        String router = router("{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": "
                + "{\"endpoint\": \"" + id + "\"}}");

        JsonNode refused = http.delete("/deployments/" + id, admin()).assertError(409, "in_use", "deployment_id");
        assertThat(refused.path("used_by").findValuesAsText("id")).containsExactly(router);
        assertThat(http.get("/deployments/" + id, admin()).status()).isEqualTo(200);

        HttpReply forced = http.delete("/deployments/" + id + "?force=true", admin());
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);
        assertThat(forced.json().at("/warnings/0/code").asText()).isEqualTo("routers_deactivated");
        assertThat(http.get("/routers/" + router, admin()).json().path("status").asText())
                .isEqualTo("inactive");
        assertThat(http.get("/deployments/" + id, admin()).status()).isEqualTo(404);
    }

    @Test
    void aRouterMayNotNameADeploymentThatDoesNotRun() {
        HttpReply refused = http.post(
                "/routers/actions/validate",
                "{\"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": \"dpl_none\"}}",
                admin());

        assertThat(refused.json().path("valid").asBoolean()).isFalse();
        assertThat(refused.json().path("errors").path(0).path("code").asText()).isEqualTo("unknown_reference");
        assertThat(refused.json().path("errors").path(0).path("param").asText()).isEqualTo("params.endpoint");
    }

    @Test
    void aLocalModelStepAnswersWithTheRunningDeploymentOfItsModelOnItsCluster() {
        running(mine, name(), "");
        String router = router("{\"step_id\": \"go\", \"action_type\": \"local_model\", \"params\": " + "{\"model\": \""
                + model + "\", \"cluster\": \"" + cluster + "\"}}");

        HttpReply answer = chat(router, member);

        answer.assertError(502, "upstream_unavailable", null);
        // the least busy of this project's running deployments of the model there (other tests made some too)
        JsonNode chosen = http.get("/deployments/" + answer.header("x-router-endpoint"), admin())
                .json();
        assertThat(chosen.path("model_id").asText()).as(chosen.toString()).isEqualTo(model);
        assertThat(chosen.path("project_id").asText()).isEqualTo(mine);
        assertThat(chosen.path("cluster_id").asText()).isEqualTo(cluster);
    }

    @Test
    void aLocalModelStepWithNoRunningDeploymentIs503NamingTheStep() {
        String router = router("{\"step_id\": \"go\", \"action_type\": \"local_model\", \"params\": " + "{\"model\": \""
                + model + "\", \"cluster\": \"local\"}}");

        JsonNode error = chat(router, member).assertError(503, "model_not_deployed", null);

        assertThat(error.path("step").asText()).isEqualTo("go");
        assertThat(error.path("message").asText()).contains(model);
    }

    @Test
    void decideRefusesADeploymentThatCannotDecide() {
        String name = name();
        running(mine, name, "");

        decide(name).assertError(400, "model_capability_unsupported", "model");
    }

    @Test
    void decideAnswersFromALocalDeploymentsReplicasWithinItsRateLimit() {
        String name = runningDecider(
                ", \"rate_limit\": {\"algorithm\": \"token_bucket\", \"rate_limit\": 1, \"time_window\": \"hour\"}");

        HttpReply answered = decide(name);
        HttpReply refused = decide(name);

        assertThat(answered.status()).as(answered.body()).isEqualTo(200);
        assertThat(answered.json().path("model").asText()).isEqualTo(name);
        assertThat(answered.json().path("answers").path("team").path("choice").asText())
                .isIn("billing", "tech");
        assertThat(answered.header("x-ratelimit-limit")).isEqualTo("1");
        assertThat(answered.header("x-ratelimit-remaining")).isEqualTo("0");
        refused.assertError(429, "rate_limited", null);
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(3590L, 3600L);
    }

    @Test
    void aChatWithADeploymentOfAModelThatOnlyDecidesIsRefusedAtModel() {
        String name = runningDecider("");

        chat(name, member).assertError(400, "model_capability_unsupported", "model");
    }
}
