package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.AgentClient;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.TestServer;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An agent's own MCP endpoint, used by a real MCP client (the Java SDK): it lists exactly the agent's tools, named
 * by gateway, calls them through to server-everything, and lets in only tokens of the agent's project.
 */
class AgentEndpointTest {
    private static final String[] ADMIN = {"Authorization", "Bearer admin-secret-1"};

    @Test
    void aRealMcpClientListsAndCallsTheAgentsToolsWithATokenOfItsProject() throws Exception {
        try (var everything = EverythingServer.start("streamableHttp");
                var server = ArborServer.start(
                        Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_ADMIN_TOKEN", "admin-secret-1"))) {
            TestServer http = server.http();
            String red = http.newProject("red", ADMIN);
            String blue = http.newProject("blue", ADMIN);
            Attached attached = attachEchoAndSum(http, everything.url("/mcp"), red);
            String gateway = attached.gateway();
            Map<String, String> ids = attached.toolIds();
            String redToken = token(http, red);
            String blueToken = token(http, blue);

            try (McpSyncClient client = AgentClient.connect(http, "agent-1", redToken)) {
                client.initialize();
                assertThat(client.listTools().tools())
                        .extracting(McpSchema.Tool::name)
                        .containsExactly("everything__echo", "everything__get-sum");
                McpSchema.CallToolResult echoed =
                        client.callTool(call("everything__echo", Map.of("message", "hello agent")));
                assertThat(((McpSchema.TextContent) echoed.content().getFirst()).text())
                        .contains("hello agent");
                McpSchema.CallToolResult sum = client.callTool(call("everything__get-sum", Map.of("a", 2, "b", 40)));
                assertThat(((McpSchema.TextContent) sum.content().getFirst()).text())
                        .contains("42");
                assertThatThrownBy(() -> client.callTool(call("everything__get-env", Map.of())))
                        .hasMessageContaining("has no tool");
            }
            // what the endpoint serves follows every change at once: a disabled gateway, a detached agent
            http.patch("/connectors/configured/" + gateway + "/toggle", "{\"enabled\": false}", ADMIN);
            assertThat(listed(http, redToken)).isEmpty();
            http.patch("/connectors/configured/" + gateway + "/toggle", "{\"enabled\": true}", ADMIN);
            assertThat(listed(http, redToken)).containsExactly("everything__echo", "everything__get-sum");
            http.post(
                    "/prompts/agent-1/connections/" + gateway + "/attach-tools",
                    "{\"tool_ids\": [\"" + ids.get("echo") + "\"]}",
                    ADMIN);
            assertThat(listed(http, redToken)).containsExactly("everything__echo");
            try (McpSyncClient outsider = AgentClient.connect(http, "agent-1", blueToken)) {
                assertThatThrownBy(outsider::initialize).isNotNull();
            }
            http.get("/mcp/prompts/agent-1", ADMIN).assertError(405, "method_not_allowed", null);
            JsonNode garbage = http.post("/mcp/prompts/agent-1", "{\"no\": \"method\"}", ADMIN)
                    .json();
            assertThat(garbage.at("/error/code").asInt()).isEqualTo(-32600);
            assertThat(http.post("/mcp/prompts/agent-1", "not json", ADMIN)
                            .json()
                            .at("/error/code")
                            .asInt())
                    .isEqualTo(-32700);
            assertThat(http.post(
                                    "/mcp/prompts/agent-1",
                                    "{\"jsonrpc\": \"2.0\", \"id\": 7, \"method\": " + "\"resources/list\"}",
                                    ADMIN)
                            .json()
                            .at("/error/code")
                            .asInt())
                    .isEqualTo(-32601);
            assertThat(http.post(
                                    "/mcp/prompts/agent-1",
                                    "{\"jsonrpc\": \"2.0\", \"method\": " + "\"notifications/initialized\"}",
                                    ADMIN)
                            .status())
                    .isEqualTo(202);
            http.post(
                            "/mcp/prompts/agent-1",
                            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"}",
                            "Authorization",
                            "Bearer " + blueToken)
                    .assertError(403, "project_forbidden", "prompt_id");
        }
    }

    @Test
    void aRestartedServerGetsANewSessionAndErrorsReachTheAgentAsToolErrors() throws Exception {
        EverythingServer everything = EverythingServer.start("streamableHttp");
        try (var server = ArborServer.start(Map.of(
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1",
                "ARBOR_ADMIN_TOKEN",
                "admin-secret-1",
                "ARBOR_MCP_TIMEOUT_SECONDS",
                "2"))) {
            TestServer http = server.http();
            String red = http.newProject("red", ADMIN);
            attachEchoAndSum(http, everything.url("/mcp"), red, "trigger-long-running-operation");
            assertThat(callText(http, "everything__echo", "{\"message\": \"one\"}"))
                    .contains("one");

            // the server restarts and has forgotten the session: a new one, and the call goes through
            everything.close();
            everything = EverythingServer.start("streamableHttp", everything.port());
            assertThat(callText(http, "everything__echo", "{\"message\": \"two\"}"))
                    .contains("two");

            // arguments the server refuses: its error, as a tool error the agent can read
            JsonNode refused = callResult(http, "everything__get-sum", "{\"a\": \"not a number\"}");
            assertThat(refused.path("isError").asBoolean()).isTrue();

            // a call slower than ARBOR_MCP_TIMEOUT_SECONDS: a tool error that says so, and the next call works
            JsonNode slow =
                    callResult(http, "everything__trigger-long-running-operation", "{\"duration\": 6, \"steps\": 2}");
            assertThat(slow.path("isError").asBoolean()).isTrue();
            assertThat(slow.at("/content/0/text").asText()).contains("did not answer within 2 s");
            assertThat(callText(http, "everything__echo", "{\"message\": \"after\"}"))
                    .contains("after");

            // the server is gone: a tool error that says so
            everything.close();
            JsonNode gone = callResult(http, "everything__echo", "{\"message\": \"three\"}");
            assertThat(gone.path("isError").asBoolean()).isTrue();
            assertThat(gone.at("/content/0/text").asText()).contains("could not be used");
        } finally {
            everything.close();
        }
    }

    private record Attached(String gateway, Map<String, String> toolIds) {}

    /** A gateway to the server whose echo and get-sum tools (and any others named) agent-1 of the project uses. */
    private static Attached attachEchoAndSum(TestServer http, String url, String project, String... more) {
        String gateway = http.post(
                        "/connectors/custom",
                        "{\"name\": \"Everything\", \"url\": \"" + url
                                + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}",
                        ADMIN)
                .json()
                .path("id")
                .asText();
        http.action("/connectors/" + gateway + "/fetch-tools", ADMIN);
        var ids = new java.util.HashMap<String, String>();
        http.get("/connectors/" + gateway + "/tools?limit=100", ADMIN)
                .json()
                .path("data")
                .forEach(t -> ids.put(t.path("name").asText(), t.path("id").asText()));
        var attached = new java.util.ArrayList<>(List.of(ids.get("echo"), ids.get("get-sum")));
        for (String name : more) {
            attached.add(ids.get(name));
        }
        http.post(
                "/prompts/agent-1/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + project + "\", \"tool_ids\": " + Json.writeString(attached) + "}",
                ADMIN);
        return new Attached(gateway, ids);
    }

    private static JsonNode callResult(TestServer http, String tool, String arguments) {
        return http.post(
                        "/mcp/prompts/agent-1",
                        "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", " + "\"params\": {\"name\": \""
                                + tool + "\", \"arguments\": " + arguments + "}}",
                        ADMIN)
                .json()
                .path("result");
    }

    private static String callText(TestServer http, String tool, String arguments) {
        JsonNode result = callResult(http, tool, arguments);
        assertThat(result.path("isError").asBoolean()).as(result.toString()).isFalse();
        return result.at("/content/0/text").asText();
    }

    private static java.util.List<String> listed(TestServer http, String token) {
        var names = new java.util.ArrayList<String>();
        http.post(
                        "/mcp/prompts/agent-1",
                        "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\"}",
                        "Authorization",
                        "Bearer " + token)
                .json()
                .at("/result/tools")
                .forEach(t -> names.add(t.path("name").asText()));
        return names;
    }

    private static McpSchema.CallToolRequest call(String tool, Map<String, Object> arguments) {
        return McpSchema.CallToolRequest.builder(tool).arguments(arguments).build();
    }

    private static String token(TestServer http, String project) {
        return http.post(
                        "/auth/tokens",
                        "{\"name\": \"agent\", \"role\": \"member\", \"projects\": [\"" + project + "\"]}",
                        ADMIN)
                .json()
                .path("token")
                .asText();
    }
}
