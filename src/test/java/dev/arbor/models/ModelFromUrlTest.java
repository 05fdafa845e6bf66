package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TestServer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Models from a URL: a zip archive of the model's folder, downloaded in the background (resumable, checked against
 * the SHA-256 the caller gave), unpacked safely, and answering once in place.
 */
class ModelFromUrlTest {
    private static final String DECISION = "{\"model\": \"%s\", \"state\": \"I was charged twice this month and "
            + "want my money back.\", \"questions\": {\"team\": {\"type\": \"choice\", \"criteria\": {\"billing\": "
            + "\"charges, refunds and invoices\", \"technical\": \"errors, crashes and outages\"}}}}";
    private static final String ADD = "{\"id\": \"%s\", \"model_uri\": \"%s\", \"model_name\": \"Zipped MiniLM\", "
            + "\"model_source\": \"url\", \"engine\": \"embedding\"%s}";

    @Test
    void aZippedModelDownloadsResumesUnpacksAndAnswers() throws Exception {
        Path minilm = ModelRegistryTest.miniLmFolder();
        var files = new LinkedHashMap<String, byte[]>();
        files.put(
                "all-minilm/onnx/model_quantized.onnx",
                Files.readAllBytes(minilm.resolve("onnx/model_quantized.onnx")));
        files.put("all-minilm/tokenizer.json", Files.readAllBytes(minilm.resolve("tokenizer.json")));
        files.put("all-minilm/README.md", "# MiniLM".getBytes(StandardCharsets.UTF_8));
        byte[] archive = zip(files);
        try (var hub = new TestHub();
                var server = ArborServer.start(ModelDownloadTest.env(hub))) {
            TestServer http = server.http();
            String url = hub.withFile("minilm.zip", archive);

            HttpReply waited = http.post(
                    "/models",
                    ADD.formatted(
                            "zipped",
                            url,
                            ", \"sha256\": \"" + TestHub.sha256(archive) + "\", \"max_wait_seconds\": 60"));
            assertThat(waited.status()).as(waited.body()).isEqualTo(201);
            assertThat(waited.json().path("status").asText()).isEqualTo("downloaded");
            assertThat(waited.json().path("size_bytes").asLong()).isEqualTo(archive.length);
            Path folder = server.dataDir().resolve("models/zipped");
            assertThat(folder.resolve("onnx/model_quantized.onnx")).exists();
            assertThat(folder.resolve(".archive.zip")).doesNotExist();
            assertThat(http.post("/v1/studio/decisions", DECISION.formatted("zipped"))
                            .json()
                            .at("/answers/team/decision")
                            .asText())
                    .isEqualTo("billing");

            hub.pauseMillisPerChunk = 40;
            HttpReply started = http.post("/models", ADD.formatted("slow", url, ""));
            assertThat(started.status()).isEqualTo(202);
            ModelDownloadTest.waitFor(
                    http, "slow", m -> m.at("/download/bytes_done").asLong() > 256 * 1024);
            http.action("/models/slow/download/cancel");
            ModelDownloadTest.waitFor(
                    http, "slow", m -> m.path("status").asText().equals("not_downloaded"));
            hub.pauseMillisPerChunk = 0;
            http.action("/models/slow/download");
            ModelDownloadTest.waitFor(
                    http, "slow", m -> m.path("status").asText().equals("downloaded"));
            assertThat(hub.ranges).anyMatch(range -> range.matches("bytes=[1-9]\\d*-"));
        }
    }

    @Test
    void aBadArchiveOrAWrongChecksumFailsTheModelAndNothingLeavesItsFolder() throws Exception {
        try (var hub = new TestHub();
                var server = ArborServer.start(ModelDownloadTest.env(hub))) {
            TestServer http = server.http();
            byte[] escaping = zip(Map.of("../../escape.txt", new byte[] {1}, "tokenizer.json", new byte[] {2}));
            byte[] incomplete = zip(Map.of("model.onnx", new byte[] {3}));

            failsWith(http, "escape", hub.withFile("escape.zip", escaping), "", "outside the model's folder");
            assertThat(server.dataDir().resolve("escape.txt")).doesNotExist();
            failsWith(http, "incomplete", hub.withFile("incomplete.zip", incomplete), "", "tokenizer.json");
            failsWith(
                    http,
                    "tampered",
                    hub.withFile("tampered.zip", incomplete),
                    ", \"sha256\": \"" + "ab".repeat(32) + "\"",
                    "SHA-256");
            failsWith(http, "not-a-zip", hub.withFile("not-a-zip.zip", new byte[] {1, 2, 3}), "", "zip");

            http.post("/models", ADD.formatted("missing", hub.url() + "/files/missing.zip", ""))
                    .assertError(400, "invalid_field", "model_uri");
            http.post("/models", ADD.formatted("bad-sha", hub.url() + "/files/escape.zip", ", \"sha256\": \"xyz\""))
                    .assertError(400, "invalid_field", "sha256");
            http.post("/models", ADD.formatted("private", "http://10.1.2.3/model.zip", ""))
                    .assertError(400, "invalid_field", "model_uri");
            assertThat(http.get("/models/missing").status()).isEqualTo(404);
        }
        try (var server = ArborServer.start(Map.of("ARBOR_NO_DOWNLOADS", "1"))) {
            server.http()
                    .post("/models", ADD.formatted("off", "https://models.example.com/m.zip", ""))
                    .assertError(409, "downloads_disabled", null);
        }
    }

    private static void failsWith(TestServer http, String id, String url, String extra, String why) throws Exception {
        HttpReply added = http.post("/models", ADD.formatted(id, url, extra));
        assertThat(added.status()).as(added.body()).isIn(201, 202);
        JsonNode failed = ModelDownloadTest.waitFor(
                http, id, m -> m.path("status").asText().equals("failed"));
        assertThat(failed.path("error").asText()).contains(why);
    }

    private static byte[] zip(Map<String, byte[]> files) throws Exception {
        var bytes = new ByteArrayOutputStream();
        try (var zip = new ZipOutputStream(bytes)) {
            for (var file : files.entrySet()) {
                zip.putNextEntry(new ZipEntry(file.getKey()));
                zip.write(file.getValue());
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }
}
