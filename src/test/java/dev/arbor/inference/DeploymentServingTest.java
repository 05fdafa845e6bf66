package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.inference.DeploymentDirectory.Backend;
import dev.arbor.inference.DeploymentDirectory.ServedDeployment;
import dev.arbor.inference.endpoints.Strategy;
import dev.arbor.inference.openai.InferenceRequest;
import dev.arbor.inference.openai.Operation;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.ratelimits.RateLimiters;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.TestServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Routing serves deployments: replicas on this machine answer in-process in OpenAI's shapes (chat, its stream,
 * embeddings as floats or base64) for the official client, a model that cannot serve the call is refused, and a
 * deployment's rate limit answers 429 with its headers on every answer. The replicas are scripted here (the models'
 * replica sets are theirs to test); the routes are the real server's, through a route of the test's own.
 */
class DeploymentServingTest {
    private static final String ADMIN = "admin-secret-1";
    private static final String ROUTER = "rtr_serving";

    @TempDir
    static Path folder;

    private static final MovableClock clock = new MovableClock();
    private static final Map<String, EndpointDirectory.Target> deployments = Map.of(
            "dep_chat",
            deployment("dep_chat", "chatty", Optional.empty(), ReplicaSet.Capability.GENERATE),
            "dep_embed",
            deployment("dep_embed", "embedder", Optional.empty(), ReplicaSet.Capability.EMBED),
            "dep_limited",
            deployment(
                    "dep_limited",
                    "limited",
                    Optional.of(new RateLimiter.Limit(RateLimiter.Algorithm.FIXED_WINDOW, 2, RateLimiter.Window.HOUR)),
                    ReplicaSet.Capability.GENERATE));

    private static Database database;
    private static OutboundClient outbound;
    private static Routing routing;
    private static ArborServer server;
    private static TestServer http;

    @BeforeAll
    static void start() {
        database = Database.openSqlite(folder.resolve("routing.db"));
        outbound = new OutboundClient(new OutboundPolicy(List.of()));
        routing = new Routing(
                (inProject, ref) -> Optional.ofNullable(deployments.get(ref)),
                outbound,
                RateLimiters.forDatabase(database, clock),
                database,
                new RoutingSettings(Duration.ofSeconds(5), 2, Duration.ofSeconds(30)),
                new ServerHop(new byte[32], "srv_test", clock),
                clock,
                new SimpleMeterRegistry());
        routing.start();
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN), routes -> {
            var group = routes.group("test");
            for (Operation operation : Operation.values()) {
                // the model named is the deployment's id: what a request's lookup in the caller's projects gives
                group.post("/test/v1/" + operation.path(), "Served by the test's deployments", ctx -> {
                    InferenceRequest request = InferenceRequest.read(operation, ctx.bodyAsBytes());
                    routing.forward(
                            ctx,
                            request,
                            new Strategy.Single(request.model()),
                            project -> true,
                            Attribution.router(ROUTER, Map.of()));
                });
            }
        });
        http = server.http();
    }

    @AfterAll
    static void stop() {
        server.close();
        routing.close();
        database.close();
        outbound.close();
    }

    private static EndpointDirectory.Target deployment(
            String id, String name, Optional<RateLimiter.Limit> limit, ReplicaSet.Capability capability) {
        return new EndpointDirectory.Target.Deployment(
                new ServedDeployment(id, name, "prj_1", limit, new Backend.Replicas(new ScriptedReplicas(capability))));
    }

    private static String base() {
        return "http://127.0.0.1:" + http.port() + "/test/v1";
    }

    private static HttpReply post(String operation, String body) {
        return http.post("/test/v1/" + operation, body, "Authorization", "Bearer " + ADMIN);
    }

    @Test
    void theOfficialClientChatsWithADeployment() {
        JsonNode answer = OpenAiClient.call("chat", base(), ADMIN, "dep_chat").getFirst();

        assertThat(answer.path("answer").path("content").asText())
                .as(answer.toString())
                .isEqualTo("Hello there");
        assertThat(answer.path("answer").path("model").asText()).isEqualTo("dep_chat");
        assertThat(answer.path("answer").path("usage").path("prompt_tokens").asInt())
                .isEqualTo(3);
        assertThat(answer.path("answer").path("usage").path("completion_tokens").asInt())
                .isEqualTo(2);
        assertThat(answer.path("answer").path("usage").path("total_tokens").asInt())
                .isEqualTo(5);
    }

    @Test
    void aWholeChatAnswerHasOpenAisFields() {
        HttpReply answer = post(
                "chat/completions",
                "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                        + "\"content\": [{\"type\": \"text\", \"text\": \"Say \"}, {\"type\": \"text\", \"text\": \"hi\"}]}]}");

        JsonNode body = answer.json();
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(body.path("id").asText()).startsWith("chatcmpl-");
        assertThat(body.path("object").asText()).isEqualTo("chat.completion");
        assertThat(body.path("created").asLong()).isPositive();
        assertThat(body.path("choices").path(0).path("finish_reason").asText()).isEqualTo("stop");
        assertThat(body.path("choices").path(0).path("message").path("role").asText())
                .isEqualTo("assistant");
        assertThat(answer.header("x-router-endpoint")).isEqualTo("dep_chat");
    }

    @Test
    void theOfficialClientStreamsADeploymentsAnswerPieceByPiece() {
        List<JsonNode> lines = OpenAiClient.call("stream", base(), ADMIN, "dep_chat");

        List<String> pieces = lines.stream()
                .filter(line -> line.has("chunk"))
                .map(line -> line.path("chunk").path("content").asText(""))
                .filter(text -> !text.isEmpty())
                .toList();
        assertThat(pieces).as(lines.toString()).containsExactly("Hel", "lo ", "there");
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
    }

    @Test
    void theOfficialClientGetsEmbeddingsItAskedForInBase64() {
        JsonNode answer =
                OpenAiClient.call("embeddings", base(), ADMIN, "dep_embed").getFirst();

        assertThat(answer.path("answer").path("embedding").toString())
                .as(answer.toString())
                .isEqualTo("[0.5,-1.25,3]");
        assertThat(answer.path("answer").path("usage").path("prompt_tokens").asInt())
                .isEqualTo(4);
    }

    @Test
    void embeddingsComeAsFloatsOrAsLittleEndianBase64() {
        JsonNode floats = post("embeddings", "{\"model\": \"dep_embed\", \"input\": [\"a\", \"b\"]}")
                .json();
        JsonNode encoded = post(
                        "embeddings", "{\"model\": \"dep_embed\", \"input\": \"a\", \"encoding_format\": \"base64\"}")
                .json();

        assertThat(floats.path("object").asText()).isEqualTo("list");
        assertThat(floats.path("data")).hasSize(2);
        assertThat(floats.path("data").path(1).path("index").asInt()).isEqualTo(1);
        assertThat(floats.path("data").path(0).path("embedding").toString()).isEqualTo("[0.5,-1.25,3.0]");
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder()
                        .decode(encoded.path("data").path(0).path("embedding").asText()))
                .order(ByteOrder.LITTLE_ENDIAN);
        assertThat(List.of(bytes.getFloat(), bytes.getFloat(), bytes.getFloat()))
                .containsExactly(0.5f, -1.25f, 3.0f);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "embeddings",
                        "{\"model\": \"dep_chat\", \"input\": \"a\"}",
                        "model_capability_unsupported",
                        "model"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_embed\", \"messages\": [{\"role\": \"user\", " + "\"content\": \"hi\"}]}",
                        "model_capability_unsupported",
                        "model"),
                Arguments.of("chat/completions", "{\"model\": \"dep_chat\"}", "missing_field", "messages"),
                Arguments.of(
                        "chat/completions", "{\"model\": \"dep_chat\", \"messages\": []}", "invalid_field", "messages"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"robot\", " + "\"content\": \"hi\"}]}",
                        "invalid_field",
                        "messages[0].role"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", " + "\"content\": 7}]}",
                        "invalid_field",
                        "messages[0].content"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": [{\"type\": \"image_url\"}]}]}",
                        "invalid_field",
                        "messages[0].content[0]"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": \"hi\"}], \"temperature\": 3}",
                        "invalid_field",
                        "temperature"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": \"hi\"}], \"max_tokens\": 0}",
                        "invalid_field",
                        "max_tokens"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": \"hi\"}], \"n\": 2}",
                        "invalid_field",
                        "n"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": \"hi\"}], \"stop\": [\"a\", \"b\", \"c\", \"d\", \"e\"]}",
                        "invalid_field",
                        "stop"),
                Arguments.of(
                        "chat/completions",
                        "{\"model\": \"dep_chat\", \"messages\": [{\"role\": \"user\", "
                                + "\"content\": \"hi\"}], \"seed\": \"x\"}",
                        "invalid_field",
                        "seed"),
                Arguments.of("completions", "{\"model\": \"dep_chat\", \"prompt\": [1, 2]}", "invalid_field", "prompt"),
                Arguments.of(
                        "completions",
                        "{\"model\": \"dep_chat\", \"prompt\": \"hi\", \"stream\": true}",
                        "invalid_field",
                        "stream"),
                Arguments.of("embeddings", "{\"model\": \"dep_embed\"}", "missing_field", "input"),
                Arguments.of(
                        "embeddings", "{\"model\": \"dep_embed\", \"input\": [\"a\", 3]}", "invalid_field", "input[1]"),
                Arguments.of(
                        "embeddings",
                        "{\"model\": \"dep_embed\", \"input\": \"a\", \"encoding_format\": \"hex\"}",
                        "invalid_field",
                        "encoding_format"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void whatADeploymentCannotServeIsRefusedNamingTheField(String operation, String body, String code, String param) {
        post(operation, body).assertError(400, code, param);
    }

    @Test
    void aTextCompletionIsTheModelsAnswerToThePrompt() {
        JsonNode answer = post("completions", "{\"model\": \"dep_chat\", \"prompt\": \"Say hello.\"}")
                .json();

        assertThat(answer.path("object").asText()).as(answer.toString()).isEqualTo("text_completion");
        assertThat(answer.path("id").asText()).startsWith("cmpl-");
        assertThat(answer.path("choices").path(0).path("text").asText()).isEqualTo("Hello there");
    }

    @Test
    void aRateLimitedDeploymentSendsItsHeadersOnEveryAnswerAndRefusesPastItsLimit() {
        String chat = "{\"model\": \"dep_limited\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
        HttpReply first = post("chat/completions", chat);
        HttpReply second = post("chat/completions", chat);
        HttpReply refused = post("chat/completions", chat);

        assertThat(first.status()).isEqualTo(200);
        assertThat(first.header("x-ratelimit-limit")).isEqualTo("2");
        assertThat(first.header("x-ratelimit-remaining")).isEqualTo("1");
        assertThat(Long.parseLong(first.header("x-ratelimit-reset"))).isBetween(3590L, 3600L);
        assertThat(second.header("x-ratelimit-remaining")).isEqualTo("0");
        refused.assertError(429, "rate_limited", null);
        assertThat(refused.header("x-ratelimit-remaining")).isEqualTo("0");
        assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(3590L, 3600L);
    }

    @Test
    void requestsToADeploymentAreCountedWithItAsTheEndpoint() {
        Instant since = Instant.ofEpochSecond(clock.instant().getEpochSecond());
        post("embeddings", "{\"model\": \"dep_embed\", \"input\": \"counted\"}");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> routing.stats(ROUTER, since).endpoints().stream()
                        .anyMatch(e -> e.endpoint().equals("dep_embed") && e.promptTokens() >= 4));
    }

    /**
     * Replicas that answer from a script: "Hello there" in three pieces for 3 prompt and 2 completion tokens, and the
     * vector (0.5, -1.25, 3) for each input, 4 tokens an input.
     */
    private static final class ScriptedReplicas implements ReplicaSet {
        private final ReplicaSet.Capability capability;

        ScriptedReplicas(ReplicaSet.Capability capability) {
            this.capability = capability;
        }

        @Override
        public String modelId() {
            return "scripted-" + capability.name().toLowerCase(java.util.Locale.ROOT);
        }

        @Override
        public List<Capability> capabilities() {
            return List.of(Capability.SCORE, capability);
        }

        @Override
        public int desired() {
            return 1;
        }

        @Override
        public List<ReplicaState> replicas() {
            return List.of(
                    new ReplicaState(0, ProcessHandle.current().pid(), ReplicaStatus.READY, 0, Optional.empty()));
        }

        @Override
        public void scale(int replicas) {}

        @Override
        public void autoscale(Optional<Autoscaling> autoscaling) {}

        @Override
        public Scoring.Answer score(Scoring.Request request) {
            throw new UnsupportedOperationException("not asked here");
        }

        @Override
        public Embeddings embed(List<String> inputs, Duration patience) {
            return new Embeddings(
                    inputs.stream().map(i -> new float[] {0.5f, -1.25f, 3.0f}).toList(), 4 * inputs.size());
        }

        @Override
        public Generation generate(GenerationRequest request, Duration patience, Consumer<String> deltas) {
            List.of("Hel", "lo ", "there").forEach(deltas);
            return new Generation("Hello there", "stop", 3, 2);
        }

        @Override
        public void close() {}
    }
}
