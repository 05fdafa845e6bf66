package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import java.io.IOException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A step that retries an endpoint counts each retry as an attempt in {@code x-router-attempts}. */
class RetryAttemptsTest {
    private static final String ADMIN = "arb_retry_attempts_admin";

    private static OpenAiUpstream upstream;
    private static RouterFixture routers;

    @BeforeAll
    static void start() throws IOException {
        upstream = new OpenAiUpstream("retried");
        routers = RouterFixture.start(ADMIN);
        routers.cloudModel("retried-model", upstream, "remote-retried", "key");
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    @Test
    void eachRetryOfTheSameEndpointCountsAsAnAttempt() {
        String project = routers.project("retries");
        Made router = routers.router(
                project,
                "{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": "
                        + "\"retried-model\", \"retry_statuses\": [\"500\"], \"max_retries\": 2, \"backoff_ms\": 1}}");
        upstream.then(Reply.error(500, "server_error"), Reply.error(500, "server_error"));
        HttpReply reply = routers.http()
                .post(
                        "/v1/chat/completions",
                        "{\"model\": \"" + router.name()
                                + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                        "Authorization",
                        "Bearer " + routers.member(project));
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-attempts")).isEqualTo("3");
    }
}
