package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.OpenAiUpstream.Reply;
import dev.arbor.testing.ProblemCodes;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Which timeout holds for an attempt: a fallback entry's {@code timeout_seconds}, else the step's, else the one the
 * cloud model was registered with, else the server's (2 s in these tests). An upstream that never answers shows it:
 * the 504 says which timeout passed and how long it was (asserted from the message, never from a clock).
 */
class EndpointTimeoutsTest {
    private static final String ADMIN = "arb_endpoint_timeouts_admin";
    private static final AtomicInteger MODELS = new AtomicInteger();

    private static RouterFixture routers;
    private static TestServer http;
    private static String project;
    private static String member;
    private static OpenAiUpstream silent;

    @BeforeAll
    static void start() throws IOException {
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        project = routers.project("timeouts");
        member = routers.member(project);
        silent = new OpenAiUpstream("silent").always(Reply.hang());
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
        silent.close();
    }

    /** A cloud model on the silent upstream registered with these extra fields; its id. */
    private static String model(String fields) {
        String id = "silent-" + MODELS.incrementAndGet();
        HttpReply added = http.post(
                "/models",
                "{\"id\": \"" + id + "\", \"model_uri\": \"" + silent.url() + "\", \"model_name\": \"" + id
                        + "\", \"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \"m\""
                        + fields + "}",
                "Authorization",
                "Bearer " + ADMIN);
        assertThat(added.status()).as(added.body()).isEqualTo(201);
        return id;
    }

    private static JsonNode error(Made router) {
        HttpReply reply = http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router.name() + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + member);
        assertThat(reply.status()).as(reply.body()).isEqualTo(504);
        return reply.json().path("error");
    }

    @Test
    void aCloudModelsOwnFirstByteTimeoutHoldsWhereTheStepSetsNone() {
        String id = model(", \"first_byte_timeout_ms\": 1000");
        Made router = routers.router(project, RouterFixture.single("go", id));
        JsonNode error = error(router);
        assertThat(error.path("code").asText()).isEqualTo("upstream_timeout");
        assertThat(error.path("message").asText())
                .as(error.toString())
                .contains("did not start answering within its first byte timeout (1 s)");
    }

    @Test
    void theStepsFirstByteTimeoutHoldsOverTheCloudModels() {
        String id = model(", \"first_byte_timeout_ms\": 5000");
        Made router = routers.router(
                project,
                "{\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": {\"endpoint\": \"" + id
                        + "\", \"first_byte_timeout_ms\": 1500}}");
        assertThat(error(router).path("message").asText()).contains("first byte timeout (1500 ms)");
    }

    @Test
    void aFallbackEntrysTimeoutSecondsHoldsOverTheSteps() {
        String id = model("");
        Made router = routers.router(
                project,
                "{\"step_id\": \"go\", \"action_type\": \"ordered_fallback\", \"params\": {\"endpoints\": [{\"endpoint\": \""
                        + id + "\", \"timeout_seconds\": 1}], \"first_byte_timeout_ms\": 5000}}");
        assertThat(error(router).path("message").asText()).contains("first byte timeout (1 s)");
    }

    @Test
    void withoutAnyTheServersTimeoutHolds() {
        Made router = routers.router(project, RouterFixture.single("go", model("")));
        assertThat(error(router).path("message").asText()).contains("first byte timeout (2 s)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "600001", "1.5", "\"1000\""})
    void aCloudModelsTimeoutOutsideItsRangeIsRefusedAtItsField(String value) {
        HttpReply refused = http.post(
                "/models",
                "{\"id\": \"bad-timeout\", \"model_uri\": \"" + silent.url() + "\", \"model_name\": \"bad-timeout\", "
                        + "\"model_source\": \"cloud\", \"engine\": \"remote\", \"first_byte_timeout_ms\": " + value
                        + "}",
                "Authorization",
                "Bearer " + ADMIN);
        assertThat(refused.status()).as(refused.body()).isEqualTo(400);
        assertThat(ProblemCodes.of(refused.json().path("error").path("details")))
                .as(refused.body())
                .containsExactly("invalid_field first_byte_timeout_ms");
    }
}
