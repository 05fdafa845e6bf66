package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.OpenAiUpstream;
import dev.arbor.testing.TestServer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Routers page in a real browser against a real server: a router's graph built in the editor, saved and
 * activated, then read back from the server and called through; and a member's list, which holds its project's
 * routers only.
 */
class ConsoleRoutersBrowserTest {
    private static OpenAiUpstream upstream;
    private static ArborServer server;
    private static TestServer http;
    private static ConsoleBrowser browser;
    private static String[] admin;
    private static String adminToken;
    private static String supportId;
    private static String otherId;

    @BeforeAll
    static void start() throws Exception {
        upstream = new OpenAiUpstream("alpha");
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost"));
        http = server.http();
        browser = ConsoleBrowser.forServer(http, "routers");
        supportId = ConsoleBrowser.project(http, "support");
        otherId = ConsoleBrowser.project(http, "other");
        adminToken = ConsoleBrowser.adminToken(http);
        admin = ConsoleBrowser.bearer(adminToken);
        HttpReply model = http.post("/models", """
                {"id": "alpha", "model_uri": "%s", "model_name": "alpha", "model_source": "cloud",
                 "engine": "remote", "remote_model": "remote-alpha"}""".formatted(upstream.url()), admin);
        assertThat(model.status()).as(model.body()).isEqualTo(201);
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        if (upstream != null) {
            upstream.close();
        }
    }

    @Test
    void aRouterBuiltInTheGraphEditorIsSavedActiveAndAnswersThroughItsSteps() throws Exception {
        String prompt = "Answer in one sentence.";
        JsonNode said = browser.run(
                "routers/build-graph",
                Map.of(
                        "token",
                        adminToken,
                        "project",
                        "support",
                        "name",
                        "front-desk",
                        "prompt",
                        prompt,
                        "endpoint",
                        "alpha"));
        assertThat(said.path("missing").asText()).contains("prompt");

        JsonNode router =
                http.get("/routers?q=front-desk", admin).json().path("data").get(0);
        assertThat(router.path("status").asText()).isEqualTo("active");
        assertThat(router.path("project_id").asText()).isEqualTo(supportId);
        JsonNode dag = router.path("dag_config");
        assertThat(dag.path("entry_step").asText()).isEqualTo("system_prompt");
        assertThat(dag.path("steps").findValuesAsText("step_id"))
                .containsExactly("system_prompt", "request_limits", "single_endpoint");
        assertThat(dag.path("steps").findValuesAsText("action_type"))
                .containsExactly("system_prompt", "request_limits", "single_endpoint");
        assertThat(links(dag, "next_steps"))
                .containsExactly("system_prompt→request_limits", "request_limits→single_endpoint");
        assertThat(links(dag, "depends_on"))
                .containsExactly("request_limits→system_prompt", "single_endpoint→request_limits");
        assertThat(dag.at("/steps/0/params/prompt").asText()).isEqualTo(prompt);
        assertThat(dag.at("/steps/1/params/max_tokens").asInt()).isEqualTo(256);
        assertThat(dag.at("/steps/2/params/endpoint").asText()).isEqualTo("alpha");

        HttpReply answer = http.post(
                "/v1/chat/completions",
                "{\"model\": \"front-desk\", \"max_tokens\": 4000,"
                        + " \"messages\": [{\"role\": \"user\", \"content\": \"Hello?\"}]}",
                TestServer.with(admin, "X-Project-Id", supportId));
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.header("x-router-steps")).isEqualTo("system_prompt,request_limits,single_endpoint");
        assertThat(answer.json().at("/choices/0/message/content").asText()).isEqualTo("Hello from alpha.");
        JsonNode sent = upstream.requests().getLast().body();
        assertThat(sent.at("/messages/0/role").asText()).isEqualTo("system");
        assertThat(sent.at("/messages/0/content").asText()).isEqualTo(prompt);
        assertThat(sent.path("max_tokens").asInt()).isEqualTo(256);
    }

    @Test
    void aWeightedStepBuiltInItsRowEditorIsSavedWithItsWeights() throws Exception {
        HttpReply model = http.post("/models", """
                {"id": "beta", "model_uri": "%s", "model_name": "beta", "model_source": "cloud",
                 "engine": "remote", "remote_model": "remote-beta"}""".formatted(upstream.url()), admin);
        assertThat(model.status()).as(model.body()).isEqualTo(201);
        JsonNode said = browser.run(
                "routers/weighted-graph",
                Map.of("token", adminToken, "project", "support", "name", "split", "first", "alpha", "second", "beta"));
        assertThat(said.path("unreachable").asText()).contains("weighted_routing");

        JsonNode router =
                http.get("/routers?q=split", admin).json().path("data").get(0);
        assertThat(router.path("status").asText()).isEqualTo("active");
        JsonNode dag = router.path("dag_config");
        assertThat(links(dag, "next_steps")).containsExactly("system_prompt→weighted_routing");
        // the form also sends the catalog's defaults of the step's other params (retries, hold-back) as it shows them
        assertThat(dag.at("/steps/1/params/weights"))
                .isEqualTo(Json.read(
                        "[{\"endpoint\": \"alpha\", \"weight\": 3}, {\"endpoint\": \"beta\", \"weight\": 1}]"));
    }

    @Test
    void aMemberSeesOnlyItsProjectsRouters() throws Exception {
        String memberToken = http.post(
                        "/auth/tokens",
                        "{\"name\": \"dev\", \"role\": \"member\", \"projects\": [\"" + otherId + "\"]}",
                        admin)
                .json()
                .path("token")
                .asText();
        for (String[] router : List.of(new String[] {otherId, "billing"}, new String[] {supportId, "triage"})) {
            HttpReply created = http.post(
                    "/routers", "{\"project_id\": \"" + router[0] + "\", \"name\": \"" + router[1] + "\"}", admin);
            assertThat(created.status()).as(created.body()).isEqualTo(201);
        }
        JsonNode said =
                browser.run("routers/member-list", Map.of("token", memberToken, "mine", "billing", "theirs", "triage"));
        assertThat(said.path("rows").asInt()).isEqualTo(1);
    }

    @Test
    void aRouterDeletedFromTheListIsGone() throws Exception {
        String archiveId = http.post("/projects", "{\"name\": \"archive\"}", admin)
                .json()
                .path("id")
                .asText();
        String memberToken = http.post(
                        "/auth/tokens",
                        "{\"name\": \"ops-member\", \"role\": \"member\", \"projects\": [\"" + archiveId + "\"]}",
                        admin)
                .json()
                .path("token")
                .asText();
        String id = http.post("/routers", "{\"project_id\": \"" + archiveId + "\", \"name\": \"retired\"}", admin)
                .json()
                .path("id")
                .asText();
        browser.run("routers/delete", Map.of("token", memberToken, "name", "retired"));
        http.get("/routers/" + id, admin).assertError(404, "router_not_found", "router_id");
    }

    /** A step list's links as {@code step→other}, in the steps' order. */
    private static List<String> links(JsonNode dag, String list) {
        var out = new ArrayList<String>();
        for (JsonNode step : dag.path("steps")) {
            for (JsonNode other : step.path(list)) {
                out.add(step.path("step_id").asText() + "→" + other.asText());
            }
        }
        return out;
    }
}
