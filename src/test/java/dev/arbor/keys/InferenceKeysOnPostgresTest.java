package dev.arbor.keys;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The contract on PostgreSQL, and a key revoked on one server refused by another sharing the database. */
class InferenceKeysOnPostgresTest extends InferenceKeysContract {
    private final String url = TestPostgres.newDatabaseUrl();

    @Override
    protected Map<String, String> database() {
        return Map.of("ARBOR_DATABASE_URL", url);
    }

    @Test
    void aKeyRevokedOnOneServerIsRefusedByAnotherAtItsNextRequest() {
        try (var second = ArborServer.start(
                Map.of("ARBOR_DATABASE_URL", url, "ARBOR_ADMIN_TOKEN", ADMIN, "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            String secondBase = "http://127.0.0.1:" + second.http().port() + "/v1";
            HttpReply created = create(ADMIN, "{\"name\": \"shared\", \"project_id\": \"" + project() + "\"}");
            String secret = created.json().path("key").asText();
            // a model that is nowhere: the key is accepted (404), then refused (401), by the server that did not revoke
            JsonNode accepted =
                    OpenAiClient.call("chat", secondBase, secret, "nowhere").getFirst();
            assertThat(accepted.at("/error/status").asInt())
                    .as(accepted.toString())
                    .isEqualTo(404);
            http.send(
                    "DELETE", "/keys/" + created.json().path("id").asText(), null, "Authorization", "Bearer " + ADMIN);
            List<JsonNode> refused = OpenAiClient.call("chat", secondBase, secret, "nowhere");
            assertThat(refused.getFirst().at("/error/status").asInt())
                    .as(refused.toString())
                    .isEqualTo(401);
            assertThat(refused.getFirst().at("/error/code").asText()).isEqualTo("invalid_api_key");
        }
    }

    @Test
    void aKeysRequestsAMinuteHoldAcrossTwoServers() {
        try (var second = ArborServer.start(
                Map.of("ARBOR_DATABASE_URL", url, "ARBOR_ADMIN_TOKEN", ADMIN, "ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer[] servers = {http, second.http()};
            String secret = key("\"limits\": {\"requests_per_minute\": 3}");
            String body = "{\"model\": \"helpdesk\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}";
            // the servers take turns: each sees what the other took (whatever their upstream then answers)
            for (int taken = 1; taken <= 3; taken++) {
                HttpReply reply =
                        servers[taken % 2].post("/v1/chat/completions", body, "Authorization", "Bearer " + secret);
                assertThat(reply.header("x-ratelimit-remaining-requests"))
                        .as(reply.body())
                        .isEqualTo(Long.toString(3 - taken));
            }
            HttpReply refused = servers[0].post("/v1/chat/completions", body, "Authorization", "Bearer " + secret);
            assertThat(refused.status()).as(refused.body()).isEqualTo(429);
            assertThat(refused.json().at("/error/code").asText()).isEqualTo("rate_limited");
        }
    }
}
