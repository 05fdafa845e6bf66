package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TinyLlama;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real models deployed on this machine, called with the official OpenAI client: the bundled embedding model answers
 * embeddings (the client asks base64 and decodes it), a tiny llama the test writes answers chats whole and streamed,
 * and a router whose endpoint is a deployment reaches its replicas in-process.
 */
class DeploymentsWithTheOpenAiClientTest {
    private static final String ADMIN = "admin-secret-1";

    @TempDir
    static Path folder;

    private static ArborServer server;
    private static TestServer http;
    private static String project;
    private static String llamaId;

    @BeforeAll
    static void start() throws IOException {
        server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN));
        http = server.http();
        project = id(http.post("/projects", "{\"name\": \"serving\"}", admin()), 201);
        Path llama = folder.resolve("tiny-llama");
        TinyLlama.write(llama, 7);
        id(
                http.post(
                        "/models",
                        "{\"id\": \"tiny-llama\", \"model_uri\": \"" + llama + "\", \"model_name\": \"Tiny llama\", "
                                + "\"model_source\": \"local\", \"engine\": \"causal-lm\"}",
                        admin()),
                201);
        running("minilm", "minilm-decider");
        llamaId = running("llama", "tiny-llama");
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String[] admin() {
        return new String[] {"Authorization", "Bearer " + ADMIN};
    }

    private static String id(HttpReply reply, int status) {
        assertThat(reply.status()).as(reply.body()).isEqualTo(status);
        return reply.json().path("id").asText();
    }

    private static String running(String name, String model) {
        String id = id(
                http.post(
                        "/deployments",
                        "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"model_id\": \"" + model
                                + "\"}",
                        admin()),
                202);
        StatusWaits.until(http, "/deployments/" + id + "?wait=5", "running", Duration.ofSeconds(180), admin());
        return id;
    }

    private static String base() {
        return "http://127.0.0.1:" + http.port() + "/v1";
    }

    @Test
    void theBundledEmbeddingModelEmbedsForTheOfficialClient() {
        JsonNode answer = OpenAiClient.call("embeddings", base(), ADMIN, "minilm")
                .getFirst()
                .path("answer");

        assertThat(answer.path("embedding").size()).as(answer.toString()).isEqualTo(384);
        assertThat(answer.path("model").asText()).isEqualTo("minilm");
        assertThat(answer.path("usage").path("prompt_tokens").asInt()).isPositive();
    }

    @Test
    void aTinyLlamaChatsWithTheOfficialClient() {
        JsonNode answer = OpenAiClient.call("chat", base(), ADMIN, "llama").getFirst();

        assertThat(answer.path("answer").path("content").isTextual())
                .as(answer.toString())
                .isTrue();
        assertThat(answer.path("answer").path("model").asText()).isEqualTo("llama");
        assertThat(answer.path("answer").path("usage").path("completion_tokens").asInt())
                .isPositive();
    }

    @Test
    void aTinyLlamaStreamsToTheOfficialClient() {
        List<JsonNode> lines = OpenAiClient.call("stream", base(), ADMIN, "llama");

        assertThat(lines).as(lines.toString()).anyMatch(line -> line.has("chunk"));
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
    }

    @Test
    void aRouterWhoseEndpointIsADeploymentReachesItsReplicas() {
        HttpReply router = http.post(
                "/routers",
                "{\"project_id\": \"" + project + "\", \"name\": \"front\", \"dag_config\": {\"entry_step\": \"go\", "
                        + "\"steps\": [{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": "
                        + "{\"endpoint\": \"" + llamaId + "\"}}]}}",
                admin());
        assertThat(router.status()).as(router.body()).isEqualTo(201);

        HttpReply answer = http.post(
                "/v1/chat/completions",
                "{\"model\": \"front\", \"max_tokens\": 4, \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                admin());

        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.header("x-router-endpoint")).isEqualTo(llamaId);
        assertThat(answer.json().path("object").asText()).isEqualTo("chat.completion");
    }

    @Test
    void aRoutersOutputRulesRewriteADeploymentsStreamAsItPasses() {
        HttpReply router = http.post(
                "/routers",
                "{\"project_id\": \"" + project + "\", \"name\": \"masked\", \"dag_config\": {\"entry_step\": "
                        + "\"guard\", \"steps\": [{\"step_id\": \"guard\", \"action_type\": \"content_rules\", "
                        + "\"params\": {\"rules\": [{\"match\": \"regex\", \"pattern\": \"[^\\\\[\\\\]]+\", "
                        + "\"action\": \"redact\", \"on\": \"output\"}]}, \"next_steps\": [\"go\"]}, {\"step_id\": "
                        + "\"go\", \"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": \"" + llamaId
                        + "\"}}]}}",
                admin());
        assertThat(router.status()).as(router.body()).isEqualTo(201);

        List<JsonNode> lines = OpenAiClient.call("stream", base(), ADMIN, "masked");

        String text = lines.stream()
                .filter(line -> line.has("chunk"))
                .map(line -> line.path("chunk").path("content").asText(""))
                .collect(Collectors.joining());
        assertThat(lines.getLast().path("done").asBoolean())
                .as(lines.toString())
                .isTrue();
        // every run of the model's text that is not a bracket became the mark, however the pieces were cut
        assertThat(text).as(lines.toString()).isNotEmpty().matches("(\\[REDACTED\\]|\\[|\\])+");
    }
}
