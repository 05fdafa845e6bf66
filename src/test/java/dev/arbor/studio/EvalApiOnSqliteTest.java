package dev.arbor.studio;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvalApiOnSqliteTest extends EvalApiContract {
    @Override
    Map<String, String> environment() {
        return Map.of("ARBOR_TEST_MODELS", "1");
    }

    @Test
    void anEvalRunningWhenItsServerStopsIsFailedAtTheNextStartWithTheReason() {
        Path data;
        String id;
        try (var first = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1"))) {
            data = first.dataDir();
            first.http().post("/models/hash-small/load", "{\"options\": {\"load_delay_ms\": \"60000\"}}");
            id = first.http()
                    .post(
                            E,
                            "{\"definition\": {\"questions\": {\"ok\": {\"type\": \"noul\"}}}, "
                                    + "\"models\": [\"hash-small\"], "
                                    + "\"inline\": {\"items\": [{\"state\": \"x\", \"expected\": {\"ok\": \"yes\"}}]}}")
                    .json()
                    .path("id")
                    .asText();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> first.http()
                            .get(E + "/" + id)
                            .json()
                            .path("status")
                            .asText()
                            .equals("in_progress"));
        }
        try (var restarted = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_DATA", data.toString()))) {
            JsonNode eval = restarted.http().get(E + "/" + id).json();
            assertThat(eval.path("status").asText()).isEqualTo("failed");
            assertThat(eval.at("/error/code").asText()).isEqualTo("internal_error");
            assertThat(eval.at("/error/message").asText()).contains("server stopped");
        }
    }
}
