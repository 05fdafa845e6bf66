package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.models.engines.EmbeddingEngine;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Models added to the registry at run time: a local folder with real weights (a copy of the bundled MiniLM laid out
 * as a model hub has it) answers decisions, survives a restart, and goes on delete; built-in models stay.
 */
class ModelRegistryTest {
    /** A model folder as a hub lays it out: onnx/model_quantized.onnx and tokenizer.json. */
    static Path miniLmFolder() throws Exception {
        Path folder = TempFolders.newFolder("arbor-minilm-");
        Files.createDirectories(folder.resolve("onnx"));
        try (InputStream graph = EmbeddingEngine.class.getResourceAsStream(EmbeddingEngine.BUNDLED_GRAPH);
                InputStream tokenizer = EmbeddingEngine.class.getResourceAsStream(EmbeddingEngine.BUNDLED_TOKENIZER)) {
            Files.copy(graph, folder.resolve("onnx/model_quantized.onnx"));
            Files.copy(tokenizer, folder.resolve("tokenizer.json"));
        }
        return folder;
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aLocalModelAnswersDecisionsSurvivesARestartAndGoesOnDelete(Dialect dialect) throws Exception {
        Path folder = miniLmFolder();
        Path data = TempFolders.newFolder("arbor-registry-");
        var env = new HashMap<>(Map.of("ARBOR_DATA", data.toString()));
        if (dialect == Dialect.POSTGRESQL) {
            env.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
        }
        String body = "{\"model_uri\": \"" + folder + "\", \"model_name\": \"My MiniLM\", \"model_source\": "
                + "\"local\", \"engine\": \"embedding\", \"colour\": 1}";
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            HttpReply added = http.post("/models", body);
            assertThat(added.status()).as(added.body()).isEqualTo(201);
            JsonNode model = added.json();
            assertThat(model.path("id").asText()).isEqualTo("my-minilm");
            assertThat(added.header("location")).isEqualTo("/models/my-minilm");
            assertThat(model.path("source").asText()).isEqualTo("local");
            assertThat(model.path("status").asText()).isEqualTo("downloaded");
            assertThat(model.path("size_bytes").asLong())
                    .isEqualTo(Files.size(folder.resolve("onnx/model_quantized.onnx"))
                            + Files.size(folder.resolve("tokenizer.json")));
            assertThat(model.at("/warnings/0/code").asText()).isEqualTo("unknown_field_ignored");
            http.post("/models", body).assertError(409, "model_exists", "id");

            JsonNode decision = http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"my-minilm\", \"state\": \"I was "
                                    + "charged twice this month and want my money back.\", \"questions\": {\"team\": {\"type\": "
                                    + "\"choice\", \"criteria\": {\"billing\": \"charges, refunds and invoices\", \"technical\": "
                                    + "\"errors, crashes and outages\"}}}}")
                    .json();
            assertThat(decision.path("model").asText()).as(decision.toString()).isEqualTo("my-minilm");
            assertThat(decision.at("/answers/team/decision").asText()).isEqualTo("billing");
        }
        try (var server = ArborServer.start(env)) {
            TestServer http = server.http();
            assertThat(http.get("/v1/studio/models/my-minilm")
                            .json()
                            .path("uri")
                            .asText())
                    .isEqualTo(folder.toString());
            JsonNode deleted = http.delete("/models/my-minilm").json();
            assertThat(deleted.path("deleted").asBoolean()).isTrue();
            http.get("/models/my-minilm").assertError(404, "model_not_found", "model_id");
            assertThat(Files.exists(folder.resolve("tokenizer.json")))
                    .as("a local folder is never deleted")
                    .isTrue();
            http.delete("/models/minilm-decider").assertError(409, "model_built_in", "model_id");
        }
    }

    @Test
    void aModelThatCannotBeAddedSaysWhyForEveryField() throws Exception {
        Path empty = TempFolders.newFolder("arbor-empty-");
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            JsonNode error = http.post("/models", "{}").assertError(400, "missing_field", "model_uri");
            assertThat(error.path("details")).hasSize(4);
            http.post(
                            "/models",
                            "{\"model_uri\": \"" + empty + "\", \"model_name\": \"x\", \"model_source\": "
                                    + "\"local\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "model_uri");
            http.post(
                            "/models",
                            "{\"model_uri\": \"relative/path\", \"model_name\": \"x\", \"model_source\": "
                                    + "\"local\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "model_uri");
            http.post(
                            "/models",
                            "{\"model_uri\": \"" + empty + "\", \"model_name\": \"x\", \"model_source\": "
                                    + "\"ftp\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "model_source");
            http.post(
                            "/models",
                            "{\"model_uri\": \"ftp://models.example.com/m.zip\", \"model_name\": \"x\", "
                                    + "\"model_source\": \"url\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "model_uri");
            http.post(
                            "/models",
                            "{\"model_uri\": \"" + empty + "\", \"model_name\": \"x\", \"model_source\": "
                                    + "\"local\", \"engine\": \"hash\"}")
                    .assertError(400, "invalid_field", "engine");
            JsonNode both = http.post(
                            "/models",
                            "{\"model_uri\": \"" + empty + "\", \"model_name\": \"!!!\", "
                                    + "\"model_source\": \"local\", \"engine\": \"embedding\"}")
                    .assertError(400, "invalid_field", "model_name");
            assertThat(both.at("/details/1/param").asText()).isEqualTo("model_uri");
            http.post(
                            "/models",
                            "{\"id\": \"Bad Id\", \"model_uri\": \"" + empty + "\", \"model_name\": \"x\", "
                                    + "\"model_source\": \"local\", \"engine\": \"embedding\", \"types\": [\"rank\"]}")
                    .assertError(400, "invalid_field", "id");
            assertThat(http.get("/models").json().path("data"))
                    .as("nothing registered beside the bundled models")
                    .allMatch(model -> model.path("source").asText().equals("builtin"));
        }
    }
}
