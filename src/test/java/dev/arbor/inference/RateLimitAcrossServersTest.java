package dev.arbor.inference;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A router's rate limit holds across servers: two server processes on one PostgreSQL count against one bucket, so a
 * router limited to N a minute answers N in total, whichever server takes each request, then 429 on either.
 */
class RateLimitAcrossServersTest {
    private static final String ADMIN = "admin-secret-1";
    private static final int LIMIT = 5;

    @TempDir
    Path folder;

    @Test
    void twoServersOnOnePostgresqlLetARoutersLimitThroughOnceBetweenThem() throws Exception {
        Map<String, String> env = Map.of(
                "ARBOR_DATABASE_URL",
                TestPostgres.newDatabaseUrl(),
                "ARBOR_SECRET_KEY",
                Base64.getEncoder().encodeToString(new byte[32]),
                "ARBOR_ADMIN_TOKEN",
                ADMIN,
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1");
        try (var upstream = new OpenAiUpstream("alpha");
                var a = ArborProcess.serve(folder.resolve("a"), env)) {
            String router = limitedRouter(a.http(), upstream);
            // started after the cloud model was added: a server reads the registry's models when it starts
            try (var b = ArborProcess.serve(folder.resolve("b"), env)) {
                bothServe(a, b, router, upstream);
            }
        }
    }

    /** The limit's requests alternate between the servers, then one more on each is refused. */
    private static void bothServe(ArborProcess a, ArborProcess b, String router, OpenAiUpstream upstream) {
        List<Integer> statuses = new ArrayList<>();
        List<String> remaining = new ArrayList<>();
        for (int i = 0; i < LIMIT; i++) {
            HttpReply answer = chat(i % 2 == 0 ? a.http() : b.http(), router);
            statuses.add(answer.status());
            remaining.add(answer.header("x-ratelimit-remaining"));
        }
        HttpReply refusedOnA = chat(a.http(), router);
        HttpReply refusedOnB = chat(b.http(), router);

        assertThat(statuses).containsOnly(200);
        assertThat(remaining).containsExactly("4", "3", "2", "1", "0");
        for (HttpReply refused : List.of(refusedOnA, refusedOnB)) {
            refused.assertError(429, "rate_limited", null);
            assertThat(refused.header("x-ratelimit-limit")).isEqualTo(Integer.toString(LIMIT));
            assertThat(refused.header("x-ratelimit-remaining")).isEqualTo("0");
            assertThat(Long.parseLong(refused.header("retry-after"))).isBetween(1L, 60L);
        }
        assertThat(upstream.requests()).hasSize(LIMIT);
    }

    /** A cloud model on the upstream and an active router before it that lets {@link #LIMIT} through a minute. */
    private static String limitedRouter(TestServer http, OpenAiUpstream upstream) {
        String[] admin = {"Authorization", "Bearer " + ADMIN};
        HttpReply model = http.post(
                "/models",
                "{\"id\": \"alpha\", \"model_uri\": \"" + upstream.url() + "\", \"model_name\": \"alpha\", "
                        + "\"model_source\": \"cloud\", \"engine\": \"remote\", \"remote_model\": \"remote-alpha\"}",
                admin);
        assertThat(model.status()).as(model.body()).isEqualTo(201);
        String project = http.post("/projects", "{\"name\": \"shared\"}", admin)
                .json()
                .path("id")
                .asText();
        HttpReply router = http.post(
                "/routers",
                "{\"project_id\": \"" + project + "\", \"name\": \"limited\", \"dag_config\": {\"entry_step\": "
                        + "\"limit\", \"steps\": [{\"step_id\": \"limit\", \"action_type\": \"rate_limit\", "
                        + "\"params\": {\"requests\": " + LIMIT + ", \"window\": \"minute\"}, \"next_steps\": "
                        + "[\"go\"]}, {\"step_id\": \"go\", \"action_type\": \"single_endpoint\", \"params\": "
                        + "{\"endpoint\": \"alpha\"}}]}}",
                admin);
        assertThat(router.status()).as(router.body()).isEqualTo(201);
        return router.json().path("id").asText();
    }

    private static HttpReply chat(TestServer http, String router) {
        return http.post(
                "/v1/chat/completions",
                "{\"model\": \"" + router + "\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
                "Authorization",
                "Bearer " + ADMIN);
    }
}
