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
            assertThat(server.http().get("/v1/studio/models").json().path("data").findValuesAsText("id"))
                    .doesNotContain("hash-decider", "hash-small");
        }
        try (var server = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            JsonNode models = server.http().get("/v1/studio/models").json().path("data");
            assertThat(models.findValuesAsText("id")).contains("hash-decider", "hash-small");
            JsonNode small = server.http().get("/v1/studio/models/hash-small").json();
            assertThat(small.path("object").asText()).isEqualTo("model");
            assertThat(small.path("max_options").asInt()).isEqualTo(4);
            assertThat(small.path("types").toString()).isEqualTo("[\"choice\",\"noul\"]");
            assertThat(server.http().get("/models/hash-decider").json().path("engine").asText()).isEqualTo("hash");

            JsonNode error = server.http().get("/v1/studio/models/gpt-9")
                    .assertError(404, "model_not_found", "model_id");
            assertThat(error.path("message").asText()).contains("hash-decider").contains("hash-small");
        }
    }
}
