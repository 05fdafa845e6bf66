package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelRoutesTest {

    @Test
    void testModelsAppearOnlyWhenAskedFor() {
        try (var server = ArborServer.start(Map.of())) {
            assertThat(server.http()
                            .get("/v1/studio/models")
                            .json()
                            .path("data")
                            .findValuesAsText("id"))
                    .doesNotContain("hash-decider", "hash-small");
        }
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            JsonNode models = server.http().get("/v1/studio/models").json().path("data");
            assertThat(models.findValuesAsText("id")).contains("hash-decider", "hash-small");
            JsonNode small = server.http().get("/v1/studio/models/hash-small").json();
            assertThat(small.path("object").asText()).isEqualTo("model");
            assertThat(small.path("max_options").asInt()).isEqualTo(4);
            assertThat(small.path("types").toString()).isEqualTo("[\"choice\",\"noul\"]");
            assertThat(server.http()
                            .get("/models/hash-decider")
                            .json()
                            .path("engine")
                            .asText())
                    .isEqualTo("hash");

            JsonNode error =
                    server.http().get("/v1/studio/models/gpt-9").assertError(404, "model_not_found", "model_id");
            assertThat(error.path("message").asText()).contains("hash-decider").contains("hash-small");
        }
    }

    @Test
    void theRegistrySaysEachModelsFormat() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            JsonNode models = server.http().get("/models").json().path("data");
            var formats = new java.util.HashMap<String, String>();
            models.forEach(
                    m -> formats.put(m.path("id").asText(), m.path("format").asText()));
            assertThat(formats).containsEntry("minilm-decider", "onnx").containsEntry("hash-decider", "safetensors");
        }
    }

    @Test
    void aLoadedModelShowsItsWorkersProcessUntilItIsEjected() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            var http = server.http();
            assertThat(http.get("/models/hash-decider").json().has("worker_pid"))
                    .isFalse();
            http.action("/models/hash-decider/load");
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> http.get("/models/hash-decider")
                            .json()
                            .path("status")
                            .asText()
                            .equals("loaded"));
            long pid = http.get("/models")
                    .json()
                    .path("data")
                    .findValues("worker_pid")
                    .getFirst()
                    .asLong();
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).contains(true);
            assertThat(http.get("/models/hash-decider")
                            .json()
                            .path("worker_pid")
                            .asLong())
                    .isEqualTo(pid);
            http.action("/models/hash-decider/eject");
            assertThat(http.get("/models/hash-decider").json().has("worker_pid"))
                    .isFalse();
        }
    }

    @Test
    void adminsLoadAndEjectModels() {
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            var http = server.http();
            var loading = http.action("/models/hash-decider/load");
            assertThat(loading.status()).isEqualTo(202);
            assertThat(loading.json().path("status").asText()).isIn("loading", "loaded");
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(60))
                    .until(() -> http.get("/v1/studio/models/hash-decider")
                            .json()
                            .path("status")
                            .asText()
                            .equals("loaded"));
            assertThat(http.get("/models/hash-decider/logs?lines=5")
                            .json()
                            .path("object")
                            .asText())
                    .isEqualTo("model.logs");
            http.get("/models/hash-decider/logs?lines=0").assertError(400, "invalid_parameter", "lines");
            http.post("/models/hash-decider/load", "{\"options\": 3}").assertError(400, "invalid_field", "options");
            assertThat(http.action("/models/hash-decider/eject")
                            .json()
                            .path("ejected")
                            .asBoolean())
                    .isTrue();
            assertThat(http.get("/models/hash-decider").json().path("status").asText())
                    .isEqualTo("downloaded");
            http.action("/models/gpt-9/load").assertError(404, "model_not_found", "model_id");
        }
    }
}
