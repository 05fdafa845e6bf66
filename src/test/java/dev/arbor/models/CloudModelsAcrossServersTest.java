package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A cloud model registered on one server is called through every server sharing the PostgreSQL database, already
 * running when it was added, and one removed there is gone everywhere: each server reloads the registry's models when
 * their change counter moves (it read them only at its start before, and answered 404 until restarted).
 */
class CloudModelsAcrossServersTest {
    private static final String ADMIN = "arb_models_across_admin";

    @Test
    void aCloudModelAddedOnOneServerIsCalledThroughAnotherAlreadyRunning() throws Exception {
        Map<String, String> env = Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]),
                "ARBOR_ADMIN_TOKEN",
                ADMIN,
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1");
        try (var upstream = new OpenAiUpstream("omega");
                var a = ArborServer.start(env);
                var b = ArborServer.start(env)) {
            upstream.always(Reply.ok());
            assertThat(chat(b.http()).status()).isEqualTo(404);

            HttpReply added = a.http()
                    .post(
                            "/models",
                            "{\"id\": \"omega\", \"model_uri\": \"" + upstream.url() + "\", \"model_name\": \"omega\", "
                                    + "\"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": "
                                    + "\"remote-omega\", \"api_key\": \"omega-key\"}",
                            "Authorization",
                            "Bearer " + ADMIN);
            assertThat(added.status()).as(added.body()).isEqualTo(201);

            await().atMost(Duration.ofSeconds(10)).until(() -> chat(b.http()).status() == 200);
            assertThat(upstream.requests().getLast().headers().get("authorization"))
                    .isEqualTo("Bearer omega-key");

            a.http().delete("/models/omega", "Authorization", "Bearer " + ADMIN);
            await().atMost(Duration.ofSeconds(10)).until(() -> chat(b.http()).status() == 404);
        }
    }

    private static HttpReply chat(TestServer http) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"omega\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + ADMIN);
    }
}
