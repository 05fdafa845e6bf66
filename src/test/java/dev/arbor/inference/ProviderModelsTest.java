package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A router's provider_models step: the provider's cloud model the request asks for after the router's name
 * ({@code model: "<router>/<model>"}) answers, else the default one; a stored credential's value goes as the key.
 */
class ProviderModelsTest {
    private static final String ADMIN = "arb_provider_admin";

    private static OpenAiUpstream provider;
    private static OpenAiUpstream elsewhere;
    private static TestServer http;
    private static RouterFixture routers;
    private static String project;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        provider = new OpenAiUpstream("provider");
        elsewhere = new OpenAiUpstream("elsewhere");
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        project = routers.project("models");
        member = routers.member(project);
        routers.cloudModel("p-small", provider, "small-v1", "own-small-key");
        routers.cloudModel("p-large", provider, "large-v2", "own-large-key");
        routers.cloudModel("other", elsewhere, "other-v1", "own-other-key");
        HttpReply credential = http.post(
                "/credentials",
                "{\"name\": \"shared-key\", \"value\": \"sk-shared-123\"}",
                "Authorization",
                "Bearer " + ADMIN);
        assertThat(credential.status()).as(credential.body()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    private static String step(String credential) {
        return "{\"step_id\": \"models\", \"action_type\": \"provider_models\", \"params\": {\"provider\": \""
                + provider.url() + "\", \"default_model\": \"p-small\"" + credential + "}}";
    }

    private static HttpReply chat(String model) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + member);
    }

    static Stream<Arguments> asked() {
        return Stream.of(
                Arguments.of("the provider's name for a model", "/large-v2", "p-large", "large-v2"),
                Arguments.of("a registry id", "/p-large", "p-large", "large-v2"),
                Arguments.of("no model", "", "p-small", "small-v1"),
                Arguments.of("a model the provider lacks", "/gpt-9", "p-small", "small-v1"),
                Arguments.of("another provider's model", "/other", "p-small", "small-v1"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("asked")
    void theModelAskedForAnswersElseTheDefault(String what, String suffix, String endpoint, String remote) {
        Made router = routers.router(project, step(""));
        HttpReply reply = chat(router.name() + suffix);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-endpoint")).isEqualTo(endpoint);
        assertThat(provider.requests().getLast().body().path("model").asText()).isEqualTo(remote);
        assertThat(reply.json().path("model").asText()).isEqualTo(router.name() + suffix);
    }

    @Test
    void theOfficialClientAsksForAModelThroughTheRouter() {
        Made router = routers.router(project, step(""));
        JsonNode answer = OpenAiClient.call(
                        "chat", "http://127.0.0.1:" + http.port() + "/v1", member, router.name() + "/large-v2")
                .getFirst()
                .path("answer");
        assertThat(answer.path("content").asText()).as(answer.toString()).isEqualTo("Hello from provider.");
        assertThat(provider.requests().getLast().body().path("model").asText()).isEqualTo("large-v2");
    }

    @Test
    void eachModelSendsItsOwnKeyWithoutACredential() {
        Made router = routers.router(project, step(""));
        assertThat(chat(router.name() + "/large-v2").status()).isEqualTo(200);
        assertThat(provider.requests().getLast().headers().get("authorization")).isEqualTo("Bearer own-large-key");
    }

    @Test
    void theCredentialsValueGoesAsTheKeyInsteadOfTheModelsOwn() {
        Made router = routers.router(project, step(", \"credential\": \"shared-key\""));
        HttpReply reply = chat(router.name() + "/large-v2");
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(provider.requests().getLast().headers().get("authorization")).isEqualTo("Bearer sk-shared-123");
        assertThat(reply.body()).doesNotContain("sk-shared-123");
        assertThat(reply.headers().map().toString()).doesNotContain("sk-shared-123");
    }

    static Stream<Arguments> badSteps() {
        return Stream.of(
                Arguments.of(
                        "a default model of another provider",
                        "{\"provider\": \"" + provider.url() + "\", \"default_model\": \"other\"}",
                        "invalid_reference",
                        "default_model"),
                Arguments.of(
                        "a provider no cloud model comes from",
                        "{\"provider\": \"http://127.0.0.1:9/v1\", \"default_model\": \"p-small\"}",
                        "unknown_reference",
                        "provider"),
                Arguments.of(
                        "a default model that is not a cloud model",
                        "{\"provider\": \"" + provider.url() + "\", \"default_model\": \"nothing\"}",
                        "unknown_reference",
                        "default_model"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badSteps")
    void aSaveRefusesAStepWhoseModelsDoNotFit(String what, String params, String code, String param) {
        HttpReply reply = http.post(
                "/routers",
                "{\"project_id\": \"" + project + "\", \"name\": \"bad-" + param + "-" + code + "\", \"dag_config\": "
                        + "{\"entry_step\": \"models\", \"steps\": [{\"step_id\": \"models\", \"action_type\": "
                        + "\"provider_models\", \"params\": " + params + "}]}}",
                "Authorization",
                "Bearer " + ADMIN);
        reply.assertError(400, code, "dag_config.steps[0].params." + param);
    }
}
