package dev.arbor.inference;

import static dev.arbor.testing.RouterFixture.single;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiClient;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.RouterFixture;
import dev.arbor.testing.RouterFixture.Made;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A router's delegate step hands the request to another active router, in its project or another one the caller may
 * act in: the answer names every router it passed, loops and chains past the cap are refused.
 */
class RouterDelegationTest {
    private static final String ADMIN = "arb_delegation_admin";
    private static final AtomicInteger NAMES = new AtomicInteger();

    private static OpenAiUpstream upstream;
    private static TestServer http;
    private static RouterFixture routers;
    private static String mine;
    private static String theirs;
    private static String member;

    @BeforeAll
    static void start() throws IOException {
        upstream = new OpenAiUpstream("delta");
        routers = RouterFixture.start(ADMIN);
        http = routers.http();
        mine = routers.project("mine");
        theirs = routers.project("theirs");
        member = routers.member(mine);
        routers.cloudModel("delta", upstream, "remote-delta", "delta-key");
    }

    @AfterAll
    static void stop() throws IOException {
        routers.close();
    }

    private static String delegate(String id, String project, String router) {
        return "{\"step_id\": \"" + id + "\", \"action_type\": \"delegate\", \"params\": {\"project\": \"" + project
                + "\", \"router\": \"" + router + "\"}}";
    }

    private static HttpReply chat(String token, String model) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + token);
    }

    private static String name() {
        return "target-" + NAMES.incrementAndGet();
    }

    @Test
    void aRouterHandsTheRequestToAnotherOfItsProjectAndTheAnswerNamesBoth() {
        Made target = routers.router(mine, single("go", "delta"));
        Made named = routers.router(mine, delegate("hand", mine, target.name()));
        JsonNode answer = OpenAiClient.call("chat", "http://127.0.0.1:" + http.port() + "/v1", member, named.name())
                .getFirst()
                .path("answer");
        assertThat(answer.path("content").asText()).as(answer.toString()).isEqualTo("Hello from delta.");
        assertThat(answer.path("model").asText()).isEqualTo(named.name());
        HttpReply reply = chat(member, named.name());
        assertThat(reply.header("x-router-path")).isEqualTo(named.id() + "," + target.id());
        assertThat(reply.header("x-router-id")).isEqualTo(target.id());
        assertThat(reply.header("x-router-steps")).isEqualTo("hand,go");
        assertThat(reply.header("x-router-endpoint")).isEqualTo("delta");
    }

    @Test
    void aRouterHandsTheRequestToAnotherProjectsRouterForATokenOfBoth() {
        Made target = routers.router(theirs, single("go", "delta"));
        Made named = routers.router(mine, delegate("hand", theirs, target.name()));
        HttpReply reply = chat(routers.member(mine, theirs), named.name());
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.header("x-router-path")).isEqualTo(named.id() + "," + target.id());
    }

    @Test
    void aMemberOfTheRoutersProjectOnlyIsRefusedTheOtherProject() {
        Made target = routers.router(theirs, single("go", "delta"));
        Made named = routers.router(mine, delegate("hand", theirs, target.name()));
        int before = upstream.served();
        JsonNode error = chat(member, named.name()).assertError(403, "project_forbidden", null);
        assertThat(error.path("step").asText()).isEqualTo("hand");
        assertThat(upstream.served()).isEqualTo(before);
    }

    @Test
    void aDelegationBackToARouterOnThePathIsALoop() {
        String first = name();
        String second = name();
        // the first names the second before it exists: a target is looked for when a request comes
        Made a = routers.router(mine, first, delegate("to-second", mine, second));
        Made b = routers.router(mine, second, delegate("to-first", mine, first));
        HttpReply reply = chat(member, first);
        JsonNode error = reply.assertError(400, "router_loop", null);
        assertThat(error.path("step").asText()).isEqualTo("to-first");
        assertThat(reply.header("x-router-path")).isEqualTo(a.id() + "," + b.id());
    }

    @ParameterizedTest(name = "{0} routers")
    @ValueSource(ints = {5, 6})
    void aRequestPassesAtMostFiveRouters(int length) {
        List<Made> chain = new ArrayList<>();
        String last = name();
        chain.add(routers.router(mine, last, single("go", "delta")));
        for (int i = 1; i < length; i++) {
            String next = name();
            chain.addFirst(routers.router(mine, next, delegate("hand", mine, last)));
            last = next;
        }
        HttpReply reply = chat(member, chain.getFirst().name());
        if (length <= 5) {
            assertThat(reply.status()).as(reply.body()).isEqualTo(200);
            assertThat(reply.header("x-router-path").split(",")).hasSize(length);
        } else {
            JsonNode error = reply.assertError(400, "delegation_too_deep", null);
            assertThat(error.path("step").asText()).isEqualTo("hand");
            assertThat(reply.header("x-router-path").split(",")).hasSize(5);
        }
    }

    @Test
    void aTargetThatIsNotActiveIsNotFoundNamingTheStep() {
        Made named = routers.router(mine, delegate("hand", mine, "nobody-" + name()));
        JsonNode error = chat(member, named.name()).assertError(404, "router_not_found", null);
        assertThat(error.path("step").asText()).isEqualTo("hand");
    }

    @Test
    void aSaveBeforeTheTargetExistsWarnsAndLetsTheRouterBeActive() {
        String later = name();
        HttpReply created = http.post(
                "/routers",
                "{\"project_id\": \"" + mine + "\", \"name\": \"" + name() + "\", \"dag_config\": {\"entry_step\": "
                        + "\"hand\", \"steps\": [" + delegate("hand", mine, later) + "]}}",
                "Authorization",
                "Bearer " + ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        assertThat(created.json().path("status").asText()).isEqualTo("active");
        JsonNode warning = created.json().path("warnings").path(0);
        assertThat(warning.path("code").asText()).as(created.body()).isEqualTo("delegate_target_inactive");
        assertThat(warning.path("param").asText()).isEqualTo("dag_config.steps[0].params.router");
        routers.router(mine, later, single("go", "delta"));
        assertThat(chat(member, created.json().path("name").asText()).status()).isEqualTo(200);
    }

    @Test
    void aBlankRouterNameIsRefusedWhenSaved() {
        HttpReply reply = http.post(
                "/routers/actions/validate",
                "{\"action_type\": \"delegate\", \"params\": {\"project\": \"" + mine + "\", \"router\": \"  \"}}",
                "Authorization",
                "Bearer " + ADMIN);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        assertThat(reply.json().path("valid").asBoolean()).isFalse();
        assertThat(reply.json().at("/errors/0/param").asText()).isEqualTo("params.router");
        assertThat(reply.json().at("/errors/0/code").asText()).isEqualTo("invalid_field");
    }
}
