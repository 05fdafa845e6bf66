package dev.arbor.inference;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The pii step in a router: what the endpoint gets, and what a caller is told when the step blocks. */
class PiiStepTest {
    private static final String ADMIN = "arb_pii_step_admin";
    private static final String MESSAGE =
            "My card is 4111 1111 1111 1111 and my mail jane@example.com; the year is 2024.";

    private static OpenAiUpstream upstream;
    private static RouterFixture routers;
    private static TestServer http;
    private static String project;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        upstream = new OpenAiUpstream("pii");
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        project = routers.project("pii");
        member = routers.member(project);
        routers.cloudModel("pii-model", upstream, "remote-pii", "key");
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    private static Made guarded(String params) {
        return routers.router(
                project,
                "{\"step_id\": \"guard\", \"action_type\": \"pii\", \"params\": " + params
                        + ", \"next_steps\": [\"go\"]}, " + single("go", "pii-model"));
    }

    private static HttpReply chat(Made router) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + MESSAGE
                        + "\"}]}",
                "Authorization",
                "Bearer " + member);
    }

    @Test
    void aRedactingStepSendsTheEndpointTheTextWithoutWhatItFound() {
        Made router = guarded("{\"action\": \"redact\"}");
        int before = upstream.requests().size();
        HttpReply reply = chat(router);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        JsonNode sent = upstream.requests().get(before).body();
        assertThat(sent.at("/messages/0/content").asText())
                .isEqualTo("My card is [REDACTED:card] and my mail [REDACTED:email]; the year is 2024.");
    }

    @Test
    void aBlockingStepRefusesTheRequestNamingTheKindsAndNotTheValues() {
        Made router = guarded("{\"action\": \"block\", \"entities\": [\"card\"]}");
        int before = upstream.requests().size();
        HttpReply reply = chat(router);
        assertThat(reply.status()).as(reply.body()).isEqualTo(400);
        JsonNode error = reply.json().path("error");
        assertThat(error.path("code").asText()).isEqualTo("content_blocked");
        assertThat(error.path("step").asText()).isEqualTo("guard");
        assertThat(error.path("message").asText()).endsWith("(found: card)").doesNotContain("4111");
        assertThat(upstream.requests()).hasSize(before);
    }

    @Test
    void aTaggingStepAddsEachKindFoundToTheTags() {
        Made router = guarded("{\"action\": \"tag\", \"entities\": [\"email\", \"iban\"]}");
        HttpReply reply = chat(router);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-tags")).isEqualTo("pii:email");
    }
}
