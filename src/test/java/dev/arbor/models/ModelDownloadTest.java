package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * Models downloaded from a model hub on loopback (Hugging Face's layout and API): long work with progress, the
 * engine's files only, resumed with a range after a cancel, refused on a wrong SHA-256, real weights answering once
 * in place, and model_not_downloaded until then.
 */
class ModelDownloadTest {
    private static final String DECISION = "{\"model\": \"hub-minilm\", \"state\": \"I was charged twice this month "
            + "and want my money back.\", \"questions\": {\"team\": {\"type\": \"choice\", \"criteria\": "
            + "{\"billing\": \"charges, refunds and invoices\", \"technical\": \"errors, crashes and outages\"}}}}";

    static Map<String, String> env(TestHub hub) {
        return Map.of("ARBOR_MODEL_HUB_URL", hub.url(), "ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
    }

    static JsonNode waitFor(TestServer http, String id, Predicate<JsonNode> done) {
        return await("model " + id)
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> http.get("/models/" + id).json(), done);
    }

    @Test
    void aModelFromTheHubDownloadsWithProgressResumesAfterACancelAndThenAnswers() throws Exception {
        try (var hub = new TestHub().withMiniLm("test/minilm");
                var server = ArborServer.start(env(hub))) {
            TestServer http = server.http();
            hub.pauseMillisPerChunk = 15;
            HttpReply started = http.post(
                    "/models",
                    "{\"id\": \"hub-minilm\", \"model_uri\": \"test/minilm\", "
                            + "\"model_name\": \"MiniLM from the hub\", \"model_source\": \"model_hub\", "
                            + "\"engine\": \"embedding\"}");
            assertThat(started.status()).as(started.body()).isEqualTo(202);
            assertThat(started.json().path("status").asText()).isEqualTo("downloading");
            long total = started.json().at("/download/bytes_total").asLong();
            assertThat(total)
                    .isEqualTo(Files.size(ModelRegistryTest.miniLmFolder().resolve("onnx/model_quantized.onnx"))
                            + Files.size(ModelRegistryTest.miniLmFolder().resolve("tokenizer.json")));

            waitFor(http, "hub-minilm", m -> m.at("/download/bytes_done").asLong() > 256 * 1024);
            http.post("/v1/studio/decisions", DECISION).assertError(409, "model_not_downloaded", "model");
            assertThat(http.action("/models/hub-minilm/download/cancel")
                            .json()
                            .path("cancelled")
                            .asBoolean())
                    .isTrue();
            JsonNode stopped =
                    waitFor(http, "hub-minilm", m -> m.path("status").asText().equals("not_downloaded"));
            assertThat(stopped.has("download")).isFalse();
            JsonNode failed =
                    http.post("/v1/studio/decisions", DECISION).assertError(409, "model_not_downloaded", "model");
            assertThat(failed.path("decision_id").asText())
                    .as("a failed decision is stored")
                    .startsWith("dec_");

            hub.pauseMillisPerChunk = 0;
            assertThat(http.action("/models/hub-minilm/download").status()).isEqualTo(202);
            HttpReply second = http.post(
                    "/models",
                    "{\"id\": \"again\", \"model_uri\": \"test/minilm\", "
                            + "\"model_name\": \"again\", \"model_source\": \"model_hub\", \"engine\": \"embedding\", "
                            + "\"max_wait_seconds\": 60}");
            assertThat(second.status())
                    .as("waited for the download: " + second.body())
                    .isEqualTo(201);
            assertThat(second.json().path("status").asText()).isEqualTo("downloaded");
            JsonNode done =
                    waitFor(http, "hub-minilm", m -> m.path("status").asText().equals("downloaded"));
            assertThat(done.path("size_bytes").asLong()).isEqualTo(total);
            assertThat(hub.ranges)
                    .as("the resumed file continued where it stopped")
                    .isNotEmpty();
            Path folder = server.dataDir().resolve("models/hub-minilm");
            assertThat(folder.resolve("README.md"))
                    .as("only what the engine needs")
                    .doesNotExist();
            assertThat(folder.resolve("tokenizer.json")).exists();

            JsonNode decision = http.post("/v1/studio/decisions", DECISION).json();
            assertThat(decision.at("/answers/team/decision").asText())
                    .as(decision.toString())
                    .isEqualTo("billing");

            http.delete("/models/hub-minilm");
            assertThat(folder).as("downloaded files go with the model").doesNotExist();
        }
    }

    @Test
    void aDownloadCutByAStopIsResumedAfterTheRestart() throws Exception {
        Path data = TempFolders.newFolder("arbor-download-");
        try (var hub = new TestHub().withMiniLm("test/minilm")) {
            var env = new java.util.HashMap<>(env(hub));
            env.put("ARBOR_DATA", data.toString());
            hub.pauseMillisPerChunk = 15;
            try (var server = ArborServer.start(env)) {
                server.http()
                        .post(
                                "/models",
                                "{\"id\": \"hub-minilm\", \"model_uri\": \"test/minilm@main\", "
                                        + "\"model_name\": \"m\", \"model_source\": \"model_hub\", \"engine\": \"embedding\"}");
                waitFor(
                        server.http(),
                        "hub-minilm",
                        m -> m.at("/download/bytes_done").asLong() > 256 * 1024);
            }
            hub.pauseMillisPerChunk = 0;
            try (var server = ArborServer.start(env)) {
                TestServer http = server.http();
                assertThat(http.get("/models/hub-minilm").json().path("status").asText())
                        .isEqualTo("not_downloaded");
                http.action("/models/hub-minilm/download");
                waitFor(http, "hub-minilm", m -> m.path("status").asText().equals("downloaded"));
                assertThat(hub.ranges).isNotEmpty();
                assertThat(http.post("/v1/studio/decisions", DECISION)
                                .json()
                                .at("/answers/team/decision")
                                .asText())
                        .isEqualTo("billing");
            }
        }
    }

    @Test
    void aDownloadIsRefusedWhenTheHubCannotGiveWhatTheEngineNeeds() throws Exception {
        try (var hub = new TestHub()
                        .withMiniLm("test/minilm")
                        .withWrongHash("test/minilm", "tokenizer.json")
                        .withFiles("test/empty", Map.of("README.md", "nothing".getBytes(StandardCharsets.UTF_8)));
                var server = ArborServer.start(env(hub))) {
            TestServer http = server.http();
            String body = "{\"id\": \"m\", \"model_uri\": \"%s\", \"model_name\": \"m\", \"model_source\": "
                    + "\"model_hub\", \"engine\": \"embedding\"}";
            http.post("/models", body.formatted("test/nothing")).assertError(400, "invalid_field", "model_uri");
            http.post("/models", body.formatted("test/empty")).assertError(400, "invalid_field", "model_uri");
            http.post("/models", body.formatted("not a repo!")).assertError(400, "invalid_field", "model_uri");
            assertThat(http.get("/models").json().path("data"))
                    .as("nothing registered beside the bundled models")
                    .allMatch(model -> model.path("source").asText().equals("builtin"));

            HttpReply waited = http.post(
                    "/models", body.formatted("test/minilm").replace("{", "{\"max_wait_seconds\": " + "60, "));
            assertThat(waited.status()).as(waited.body()).isEqualTo(202);
            assertThat(waited.json().path("status").asText())
                    .as("it ended within the wait")
                    .isEqualTo("failed");
            JsonNode failed =
                    waitFor(http, "m", model -> model.path("status").asText().equals("failed"));
            assertThat(failed.path("error").asText()).contains("SHA-256");
            http.post("/v1/studio/decisions", DECISION.replace("hub-minilm", "m"))
                    .assertError(409, "model_not_downloaded", "model");
        }
        try (var hub = new TestHub().withFiles("test/escape", Map.of("../../escape.bin", new byte[] {1, 2, 3}));
                var server = ArborServer.start(Map.of(
                        "ARBOR_MODEL_HUB_URL",
                        hub.url(),
                        "ARBOR_OUTBOUND_ALLOW",
                        "127.0.0.1",
                        "ARBOR_TEST_MODELS",
                        "1"))) {
            server.http()
                    .post(
                            "/models",
                            "{\"id\": \"escape\", \"model_uri\": \"test/escape\", \"model_name\": "
                                    + "\"e\", \"model_source\": \"model_hub\", \"engine\": \"hash\"}");
            JsonNode refused = waitFor(
                    server.http(), "escape", m -> m.path("status").asText().equals("failed"));
            assertThat(refused.path("error").asText()).contains("outside the model's folder");
            assertThat(server.dataDir().resolve("escape.bin")).doesNotExist();
        }
        try (var hub = new TestHub();
                var server = ArborServer.start(Map.of("ARBOR_MODEL_HUB_URL", hub.url()))) {
            server.http()
                    .post(
                            "/models",
                            "{\"model_uri\": \"test/minilm\", \"model_name\": \"m\", "
                                    + "\"model_source\": \"model_hub\", \"engine\": \"embedding\"}")
                    .assertError(503, "model_hub_unavailable", "model_uri"); // loopback is not allowed out
        }
        try (var server = ArborServer.start(Map.of("ARBOR_NO_DOWNLOADS", "1"))) {
            JsonNode error = server.http()
                    .post(
                            "/models",
                            "{\"model_uri\": \"test/minilm\", \"model_name\": \"m\", "
                                    + "\"model_source\": \"model_hub\", \"engine\": \"embedding\"}")
                    .assertError(409, "downloads_disabled", null);
            assertThat(error.path("message").asText()).contains("ARBOR_NO_DOWNLOADS");
        }
    }
}
