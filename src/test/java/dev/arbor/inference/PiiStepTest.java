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
    private static OpenAiUpstream mailing;
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
        // its whole answers say "Hello from ops@example.com."
        mailing = new OpenAiUpstream("ops@example.com");
        routers.cloudModel("pii-mailing", mailing, "remote-mailing", "key");
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    private static Made guarded(String params) {
        return guarded(params, "pii-model");
    }

    private static Made guarded(String params, String endpoint) {
        return routers.router(
                project,
                "{\"step_id\": \"guard\", \"action_type\": \"pii\", \"params\": " + params
                        + ", \"next_steps\": [\"go\"]}, " + single("go", endpoint));
    }

    private static HttpReply ask(Made router, String more) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]"
                        + more + "}",
                "Authorization",
                "Bearer " + member);
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

    @Test
    void anOutputStepRedactsTheWholeAnswer() {
        Made router = guarded("{\"on\": \"output\"}", "pii-mailing");
        HttpReply reply = ask(router, "");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().at("/choices/0/message/content").asText()).isEqualTo("Hello from [REDACTED:email].");
    }

    @Test
    void anOutputStepRedactsAFindingSplitAcrossStreamChunks() {
        Made router = guarded("{\"on\": \"output\"}");
        upstream.then(OpenAiUpstream.Reply.streamOf("Write to jane@exa", "mple.com or call ", "+44 20 7946 0958", "."));
        HttpReply reply = ask(router, ", \"stream\": true");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(CacheStepContract.streamedText(reply))
                .isEqualTo("Write to [REDACTED:email] or call [REDACTED:phone].");
        assertThat(reply.body())
                .doesNotContain("jane@")
                .doesNotContain("mple.com")
                .endsWith("data: [DONE]\n\n");
    }

    @Test
    void anOutputStepThatBlocksEndsTheStreamWithAnErrorEventNamingTheStep() {
        Made router = guarded("{\"on\": \"output\", \"action\": \"block\"}");
        upstream.then(OpenAiUpstream.Reply.streamOf("Card: 4111 1111 ", "1111 1111", " thanks"));
        HttpReply reply = ask(router, ", \"stream\": true");
        assertThat(reply.body()).contains("\"code\":\"content_blocked\"").contains("\"step\":\"guard\"");
        assertThat(reply.body()).doesNotContain("4111").doesNotContain("[DONE]");
    }

    @Test
    void anInputStepLeavesTheAnswerAlone() {
        Made router = guarded("{}", "pii-mailing");
        HttpReply reply = ask(router, "");
        assertThat(reply.json().at("/choices/0/message/content").asText()).isEqualTo("Hello from ops@example.com.");
    }

    @Test
    void theRoutersStatsCountEachKindFoundAndEachBlock() {
        Made router = guarded("{\"action\": \"block\", \"entities\": [\"card\", \"email\"]}");
        chat(router);
        JsonNode counts = http.get("/routers/" + router.id() + "/stats", "Authorization", "Bearer " + member)
                .json()
                .path("step_counts");
        assertThat(counts.toString())
                .contains("{\"step_id\":\"guard\",\"name\":\"blocked\",\"count\":1}")
                .contains("{\"step_id\":\"guard\",\"name\":\"pii:card\",\"count\":1}")
                .contains("{\"step_id\":\"guard\",\"name\":\"pii:email\",\"count\":1}");
    }
}
