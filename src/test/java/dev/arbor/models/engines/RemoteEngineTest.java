package dev.arbor.models.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.ChatCompletionsServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The remote engine against an OpenAI-compatible endpoint on loopback: lettered options, one token, the letters'
 * log-probabilities; the endpoint's key sealed at rest, never shown, never on a command line.
 */
class RemoteEngineTest {
    private static final String KEY = "sk-arbor-test-5f3c9a";
    private static final Scoring.Question TEAM = new Scoring.Question(
            "team",
            "choice",
            "Which team handles this?",
            List.of(
                    new Scoring.Option("billing", "billing", "charges and refunds"),
                    new Scoring.Option("technical", "technical", null),
                    new Scoring.Option("sales", "sales", null),
                    new Scoring.Option("legal", "legal", null),
                    new Scoring.Option("security", "security", null)));

    @Test
    void optionsAreLetteredAndTheirLettersLogProbabilitiesAreTheAnswer() throws Exception {
        try (var endpoint = new ChatCompletionsServer(KEY, true)) {
            Engine engine = Engine.load("remote", Map.of("url", endpoint.url(), "model", "llama-3-8b", "api_key", KEY));
            List<Double> got = engine.score(new Scoring.Request(
                            "A question about the technical side of my " + "account.", List.of(), List.of(TEAM)))
                    .probabilities()
                    .get("team");
            // "A" and " A" read as the same letter; "E" (-5.0) was not among the alternatives: a tenth of the least
            double[] mass = new double[5];
            double[] logprobs = {-3.0, -0.05, -4.0, -4.5};
            for (int i = 0; i < 4; i++) {
                mass[i] = Math.exp(logprobs[i]) + Math.exp(logprobs[i] - 2);
            }
            mass[4] = Math.exp(-4.5 - 2) / 10;
            double total = mass[0] + mass[1] + mass[2] + mass[3] + mass[4];
            for (int i = 0; i < 5; i++) {
                assertThat(got.get(i)).isCloseTo(mass[i] / total, within(1e-9));
            }
            JsonNode sent = endpoint.requests().getLast();
            assertThat(sent.path("model").asText()).isEqualTo("llama-3-8b");
            assertThat(sent.path("max_tokens").asInt()).isEqualTo(1);
            assertThat(sent.path("logprobs").asBoolean()).isTrue();
            assertThat(sent.path("top_logprobs").asInt()).isEqualTo(20);
            assertThat(sent.at("/messages/1/content").asText())
                    .contains("A) billing: charges and refunds\n")
                    .contains("E) security\n");
        }
    }

    @Test
    void anEndpointWithoutLogProbabilitiesOrWithAnotherKeyFailsTheLoad() throws Exception {
        try (var plain = new ChatCompletionsServer(KEY, false)) {
            assertThatThrownBy(() -> Engine.load("remote", Map.of("url", plain.url(), "model", "m", "api_key", KEY)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("log-probabilities");
            assertThatThrownBy(() ->
                            Engine.load("remote", Map.of("url", plain.url(), "model", "m", "api_key", "sk-wrong")))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("401")
                    .hasMessageNotContaining("sk-wrong");
        }
    }

    @Test
    void aCloudModelAnswersDecisionsWithItsKeySealedAndNeverShown() throws Exception {
        try (var endpoint = new ChatCompletionsServer(KEY, true);
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String body = "{\"model_uri\": \"" + endpoint.url() + "\", \"model_name\": \"Local Llama\", "
                    + "\"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \"llama-3-8b\", "
                    + "\"api_key\": \"" + KEY + "\"}";
            HttpReply added = http.post("/models", body);
            assertThat(added.status()).as(added.body()).isEqualTo(201);
            assertThat(added.body()).doesNotContain(KEY);
            JsonNode model = http.get("/models/local-llama").json();
            assertThat(model.path("api_key_set").asBoolean()).isTrue();
            assertThat(model.path("max_options").asInt()).isEqualTo(20);
            assertThat(model.at("/options/model").asText()).isEqualTo("llama-3-8b");
            assertThat(model.toString()).doesNotContain(KEY);

            JsonNode decision = http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"local-llama\", \"state\": \"My card "
                                    + "was charged twice, this is a billing problem.\", \"questions\": {\"team\": {\"type\": "
                                    + "\"choice\", \"criteria\": [\"technical\", \"billing\", \"sales\"]}}}")
                    .json();
            assertThat(decision.at("/answers/team/decision").asText())
                    .as(decision.toString())
                    .isEqualTo("billing");
            assertThat(endpoint.authorizations()).isNotEmpty().allMatch(("Bearer " + KEY)::equals);
            assertThat(workerCommandLines()).isNotEmpty().noneMatch(line -> line.contains(KEY));
            assertThat(filesContaining(server.dataDir(), KEY)).isEmpty();

            http.post("/models", body.replace("Local Llama", "Wrong key").replace(KEY, "sk-wrong"));
            http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"wrong-key\", \"state\": \"x\", \"questions\": "
                                    + "{\"ok\": {\"type\": \"noul\"}}}")
                    .assertError(503, "model_load_failed", "model");
        }
    }

    @Test
    void aRemoteModelNeedsACloudSourceAndAnEndpointThisServerMayCall() throws Exception {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            http.post(
                            "/models",
                            "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \"Llama\", "
                                    + "\"model_source\": \"cloud\", \"engine\": \"remote\"}")
                    .assertError(400, "invalid_field", "model_uri");
            http.post(
                            "/models",
                            "{\"model_uri\": \"ftp://models.example.com/v1\", \"model_name\": \"Llama\", "
                                    + "\"model_source\": \"cloud\", \"engine\": \"remote\"}")
                    .assertError(400, "invalid_field", "model_uri");
            http.post(
                            "/models",
                            "{\"model_uri\": \"http://127.0.0.1:9/v1\", \"model_name\": \"Llama\", "
                                    + "\"model_source\": \"cloud\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "engine");
            http.post(
                            "/models",
                            "{\"model_uri\": \"/tmp\", \"model_name\": \"Llama\", \"model_source\": \"local\", "
                                    + "\"engine\": \"embedding\", \"api_key\": \"sk-1\"}")
                    .assertError(400, "invalid_field", "api_key");
        }
    }

    private static List<String> workerCommandLines() {
        return ProcessHandle.current()
                .descendants()
                .map(p -> p.info().commandLine().orElse(""))
                .filter(line -> line.contains("worker"))
                .toList();
    }

    private static List<Path> filesContaining(Path folder, String text) throws IOException {
        byte[] needle = text.getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile)
                    .filter(file -> {
                        try {
                            return indexOf(Files.readAllBytes(file), needle) >= 0;
                        } catch (IOException e) {
                            return false;
                        }
                    })
                    .toList();
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
