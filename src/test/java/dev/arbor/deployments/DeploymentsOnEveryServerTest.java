package dev.arbor.deployments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TinyLlama;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Servers on one PostgreSQL answer every deployment and router from memory: what one server saves or deletes reaches
 * the others' views within a moment (their change counters are read every quarter second), and a request for a local
 * deployment that reaches a server other than the one running its replicas is passed there. Once that server is
 * gone, the others answer 503 {@code deployment_on_other_server} until one of them has taken the deployment over, then
 * 503 {@code deployment_not_ready} until its replicas run there. {@code /v1/decide} is passed on the same way.
 */
class DeploymentsOnEveryServerTest {
    private static final String TOKEN = "arb_every_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + TOKEN};
    private static final String STUDIO_KEY = "sk-every-studio";
    /** What a change on one server may take to be seen on another (a look at the counters, a reload), with the call. */
    private static final Duration SEEN_WITHIN = Duration.ofSeconds(30);

    /** On one new database; {@code heartbeatSeconds}: how often a server looks for others' deployments to take over. */
    private static Map<String, String> env(int heartbeatSeconds) {
        return Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]),
                "ARBOR_ADMIN_TOKEN",
                TOKEN,
                "ARBOR_TEST_MODELS",
                "true",
                "ARBOR_HEARTBEAT_SECONDS",
                Integer.toString(heartbeatSeconds),
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1",
                "STUDIO_API_KEY",
                STUDIO_KEY);
    }

    @Test
    void aRouterSavedOnOneServerIsServedByAnotherUntilItIsDeletedThere() throws Exception {
        var env = env(1);
        try (var upstream = new OpenAiUpstream("alpha");
                ArborServer a = ArborServer.start(env)) {
            HttpReply model = a.http()
                    .post(
                            "/models",
                            "{\"id\": \"alpha\", \"model_uri\": \"" + upstream.url() + "\", \"model_name\": \"alpha\","
                                    + " \"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \"r\"}",
                            ADMIN);
            assertThat(model.status()).as(model.body()).isEqualTo(201);
            // started after the cloud model was added: a server reads the registry's models when it starts
            try (ArborServer b = ArborServer.start(env)) {
                String project = project(a.http());
                HttpReply router = a.http()
                        .post(
                                "/routers",
                                "{\"project_id\": \"" + project + "\", \"name\": \"shared-router\", \"dag_config\": "
                                        + "{\"entry_step\": \"go\", \"steps\": [{\"step_id\": \"go\", \"action_type\":"
                                        + " \"single_endpoint\", \"params\": {\"endpoint\": \"alpha\"}}]}}",
                                ADMIN);
                assertThat(router.status()).as(router.body()).isEqualTo(201);

                await().atMost(SEEN_WITHIN)
                        .until(() -> chat(b.http(), "shared-router").status() == 200);
                assertThat(a.http()
                                .delete("/routers/" + router.json().path("id").asText(), ADMIN)
                                .status())
                        .isEqualTo(200);
                chat(a.http(), "shared-router").assertError(404, "model_not_found", "model");
                await().atMost(SEEN_WITHIN)
                        .until(() -> chat(b.http(), "shared-router").status() == 404);
            }
        }
    }

    @Test
    void aLocalDeploymentIsAnsweredByEveryServerAndByNoneOnceDeleted() {
        var env = env(1);
        try (ArborServer a = ArborServer.start(env);
                ArborServer b = ArborServer.start(env)) {
            String id = deployed(a.http(), project(a.http()), "everywhere");

            await().atMost(SEEN_WITHIN)
                    .until(() -> embed(b.http(), "everywhere").status() == 200);
            HttpReply passed = embed(b.http(), "everywhere");
            assertThat(passed.status()).as(passed.body()).isEqualTo(200);
            assertThat(passed.json().path("model").asText()).isEqualTo("everywhere");
            assertThat(passed.json().path("data").path(0).path("embedding").size())
                    .isPositive();
            assertThat(embed(a.http(), "everywhere").body())
                    .as("the same replicas answered")
                    .isEqualTo(passed.body());

            assertThat(a.http().delete("/deployments/" + id, ADMIN).status()).isEqualTo(200);
            embed(a.http(), "everywhere").assertError(404, "model_not_found", "model");
            await().atMost(SEEN_WITHIN)
                    .until(() -> embed(b.http(), "everywhere").status() == 404);
        }
    }

    @Test
    void aStreamedChatIsPassedToTheServerOfTheReplicasAndBackChunkByChunk(@TempDir Path folder) throws Exception {
        var env = env(1);
        Path llama = folder.resolve("tiny-llama");
        TinyLlama.write(llama, 7);
        try (ArborServer a = ArborServer.start(env);
                ArborServer b = ArborServer.start(env)) {
            HttpReply model = a.http()
                    .post(
                            "/models",
                            "{\"id\": \"tiny-llama\", \"model_uri\": \"" + llama + "\", \"model_name\": \"Tiny\", "
                                    + "\"model_source\": \"local\", \"engine\": \"causal-lm\"}",
                            ADMIN);
            assertThat(model.status()).as(model.body()).isEqualTo(201);
            deployed(a.http(), project(a.http()), "streamed", "tiny-llama", "");
            await().atMost(SEEN_WITHIN).until(() -> streamedChat(b.http()).status() == 200);

            HttpReply streamed = streamedChat(b.http());

            assertThat(streamed.header("content-type")).startsWith("text/event-stream");
            List<String> events = streamed.body()
                    .lines()
                    .filter(line -> line.startsWith("data: "))
                    .toList();
            assertThat(events).hasSizeGreaterThan(2).last().isEqualTo("data: [DONE]");
            assertThat(events.getFirst()).contains("\"model\":\"streamed\"");
        }
    }

    @Test
    void aDecisionForALocalDeploymentIsPassedToTheServerOfTheReplicasAndTakesFromItsLimitOnce() {
        var env = env(1);
        try (ArborServer a = ArborServer.start(env);
                ArborServer b = ArborServer.start(env)) {
            deployed(
                    a.http(),
                    project(a.http()),
                    "decides-everywhere",
                    "hash-decider",
                    ", \"rate_limit\": {\"algorithm\": \"fixed_window\", \"rate_limit\": 2, \"time_window\": \"hour\"}");
            // until the other server's view has it running it is not passed on, and takes nothing from the limit
            var passed = new AtomicReference<HttpReply>();
            await().atMost(SEEN_WITHIN).until(() -> {
                passed.set(decide(b.http(), "decides-everywhere"));
                return passed.get().status() == 200;
            });
            HttpReply here = decide(a.http(), "decides-everywhere");
            HttpReply spent = decide(b.http(), "decides-everywhere");

            assertThat(passed.get().json().path("model").asText()).isEqualTo("decides-everywhere");
            assertThat(passed.get().header("x-studio-decision-id"))
                    .as("the studio's headers come back")
                    .isNotBlank();
            assertThat(passed.get().header("x-ratelimit-remaining")).isEqualTo("1");
            assertThat(here.status()).as(here.body()).isEqualTo(200);
            assertThat(here.json().path("answers"))
                    .as("the same replicas answered")
                    .isEqualTo(passed.get().json().path("answers"));
            assertThat(here.header("x-ratelimit-remaining")).isEqualTo("0");
            spent.assertError(429, "rate_limited", null);
        }
    }

    @Test
    void aDecisionForADeploymentWhoseServerIsGoneAnswers503() {
        var env = env(600); // no takeover while the test runs
        try (ArborServer b = ArborServer.start(env)) {
            try (ArborServer a = ArborServer.start(env)) {
                deployed(a.http(), project(a.http()), "decides-orphaned", "hash-decider", "");
                await().atMost(SEEN_WITHIN)
                        .until(() -> decide(b.http(), "decides-orphaned").status() == 200);
            }

            HttpReply waiting = decide(b.http(), "decides-orphaned");

            waiting.assertError(503, "deployment_on_other_server", "model");
            assertThat(waiting.header("retry-after")).isEqualTo("1");
        }
    }

    @Test
    void aDeploymentWhoseServerIsGoneAnswers503UntilAnotherServerTakesItOver() {
        var env = env(5); // a takeover at most 5 s after the server is gone: the first request comes before it
        try (ArborServer b = ArborServer.start(env)) {
            try (ArborServer a = ArborServer.start(env)) {
                deployed(a.http(), project(a.http()), "orphaned");
                await().atMost(SEEN_WITHIN)
                        .until(() -> embed(b.http(), "orphaned").status() == 200);
            }
            HttpReply waiting = embed(b.http(), "orphaned");
            waiting.assertError(503, "deployment_on_other_server", "model");
            assertThat(waiting.header("retry-after")).isEqualTo("1");
            // the replicas start again on this server: a worker process that loads the model; meanwhile every answer
            // says to come back (the deployment exists), first for its gone server, then for its replicas starting
            var refusals = new LinkedHashSet<String>();
            await().atMost(Duration.ofSeconds(180)).until(() -> {
                HttpReply reply = embed(b.http(), "orphaned");
                if (reply.status() != 200) {
                    refusals.add(reply.status() + " "
                            + reply.json().path("error").path("code").asText() + " at "
                            + reply.json().path("error").path("param").asText() + ", retry-after "
                            + reply.header("retry-after"));
                }
                return reply.status() == 200;
            });
            assertThat(refusals)
                    .isSubsetOf(
                            "503 deployment_on_other_server at model, retry-after 1",
                            "503 deployment_not_ready at model, retry-after 1");
        }
    }

    /** A running one-replica deployment of the bundled embedding model, made on {@code http}'s server; its id. */
    private static String deployed(TestServer http, String project, String name) {
        return deployed(http, project, name, "minilm-decider", "");
    }

    /** {@code fields}: more of the deployment's fields, each after a comma. */
    private static String deployed(TestServer http, String project, String name, String modelId, String fields) {
        HttpReply created = http.post(
                "/deployments",
                "{\"name\": \"" + name + "\", \"model_id\": \"" + modelId + "\", \"project_id\": \"" + project + "\""
                        + fields + "}",
                ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(202);
        String id = created.json().path("id").asText();
        await().atMost(Duration.ofSeconds(120))
                .until(() -> http.get("/deployments/" + id + "?wait=10", ADMIN)
                        .json()
                        .path("status")
                        .asText()
                        .equals("running"));
        return id;
    }

    private static String project(TestServer http) {
        return http.post("/projects", "{\"name\": \"every-server\"}", ADMIN)
                .json()
                .path("id")
                .asText();
    }

    private static HttpReply embed(TestServer http, String model) {
        return http.post(
                "/v1/embeddings", "{\"model\": \"" + model + "\", \"input\": \"one answer, any server\"}", ADMIN);
    }

    /** A decision from the deployment {@code model}, with the studio's key. */
    private static HttpReply decide(TestServer http, String model) {
        return http.post(
                "/v1/decide",
                "{\"model\": \"" + model + "\", \"state\": \"My invoice shows a double charge.\", \"questions\": "
                        + "{\"team\": {\"type\": \"choice\", \"criteria\": {\"billing\": \"charges\", \"tech\": "
                        + "\"errors\"}}}}",
                "Authorization",
                "Bearer " + STUDIO_KEY);
    }

    private static HttpReply streamedChat(TestServer http) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"streamed\", \"stream\": true, \"max_tokens\": 8, \"messages\": [{\"role\": \"user\", "
                        + "\"content\": \"hi\"}]}",
                ADMIN);
    }

    private static HttpReply chat(TestServer http, String model) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                ADMIN);
    }
}
