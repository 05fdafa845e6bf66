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
    void evalsAreGuardedAsTheRestOfTheStudio() {
        try (var keyed = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "STUDIO_API_KEY", "sk-evals"))) {
            keyed.http().get(E).assertError(401, "missing_api_key", null);
            keyed.http().post(E, "{}").assertError(401, "missing_api_key", null);
            keyed.http()
                    .get(E + "/eval_nope", "Authorization", "Bearer sk-evals")
                    .assertError(404, "eval_not_found", "eval_id");
        }
        try (var proxied = ArborServer.start(Map.of("ARBOR_TEST_MODELS", "1", "ARBOR_TRUSTED_PROXIES", "127.0.0.1"))) {
            proxied.http()
                    .post(E, "{}", "X-Forwarded-For", "203.0.113.7")
                    .assertError(403, "remote_access_requires_key", null);
        }
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
