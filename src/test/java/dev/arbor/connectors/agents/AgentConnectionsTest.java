package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.TestServer;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Agents' tool attachments over gateways to the real server-everything: a whole set per gateway, unknown tools each
 * named, the agent's project and the gateway's scope enforced, detach per gateway, and a gateway's delete detaching
 * every agent.
 */
class AgentConnectionsTest {
    @Test
    void agentsAttachToolsPerGatewayWithinTheirProject() throws Exception {
        try (var everything = EverythingServer.start("streamableHttp");
                var server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            TestServer http = server.http();
            String red = http.newProject("red");
            String blue = http.newProject("blue");
            String scoped = gateway(http, "Scoped", everything.url("/mcp"), "{\"projects\": [\"" + red + "\"]}");
            String global = gateway(http, "Global", everything.url("/mcp"), "{\"global\": true}");
            Map<String, String> scopedTools = tools(http, scoped);
            Map<String, String> globalTools = tools(http, global);
            String echo = scopedTools.get("echo");
            String sum = scopedTools.get("get-sum");
            String attach = "/prompts/agent-1/connections/" + scoped + "/attach-tools";

            http.post(attach, "{\"tool_ids\": [\"" + echo + "\"]}").assertError(400, "missing_field", "project_id");
            JsonNode unknown = http.post(
                            attach,
                            "{\"project_id\": \"" + red + "\", \"tool_ids\": [\"tool_nope\", \"" + echo + "\", \""
                                    + globalTools.get("echo") + "\"]}")
                    .assertError(400, "invalid_field", "tool_ids[0]");
            assertThat(unknown.path("details").findValuesAsText("param")).containsExactly("tool_ids[0]", "tool_ids[2]");
            JsonNode attached = http.post(
                            attach,
                            "{\"project_id\": \"" + red + "\", \"tool_ids\": [\"" + echo + "\", \"" + sum + "\"]}")
                    .json();
            assertThat(attached.path("tools").findValuesAsText("name")).containsExactly("echo", "get-sum");
            assertThat(attached.path("project_id").asText()).isEqualTo(red);
            // a second attach replaces the set; the project is the agent's already
            assertThat(http.post(attach, "{\"tool_ids\": [\"" + sum + "\"]}")
                            .json()
                            .path("tools")
                            .findValuesAsText("name"))
                    .containsExactly("get-sum");
            http.post(attach, "{\"project_id\": \"" + blue + "\", \"tool_ids\": []}")
                    .assertError(400, "invalid_field", "project_id");
            http.post(
                            "/prompts/agent-2/connections/" + scoped + "/attach-tools",
                            "{\"project_id\": \"" + blue + "\", \"tool_ids\": [\"" + echo + "\"]}")
                    .assertError(409, "gateway_out_of_scope", "gateway_id");
            http.post("/prompts/agent-1/connections/gw_nope/attach-tools", "{\"tool_ids\": []}")
                    .assertError(404, "gateway_not_found", "gateway_id");
            http.post("/prompts/bad%20id/connections/" + scoped + "/attach-tools", "{\"tool_ids\": []}")
                    .assertError(400, "invalid_parameter", "prompt_id");

            http.post(
                    "/prompts/agent-1/connections/" + global + "/attach-tools",
                    "{\"tool_ids\": [\"" + globalTools.get("echo") + "\"]}");
            JsonNode connections = http.get("/prompts/agent-1/connections").json();
            assertThat(connections.path("data").findValuesAsText("gateway_id"))
                    .containsExactlyInAnyOrder(scoped, global);

            JsonNode detached = http.delete("/prompts/agent-1/connections/" + scoped + "/detach")
                    .json();
            assertThat(detached.path("tools_removed").asInt()).isEqualTo(1);
            http.delete("/prompts/agent-1/connections/" + scoped + "/detach")
                    .assertError(404, "connection_not_found", "gateway_id");
            assertThat(http.get("/connectors/configured").json().path("data").findValuesAsText("id"))
                    .contains(scoped);
            assertThat(http.get("/prompts/agent-1/connections")
                            .json()
                            .path("data")
                            .findValuesAsText("gateway_id"))
                    .containsExactly(global);

            // narrowing a scope detaches the agents of the projects it leaves out, and says so
            http.post(attach, "{\"tool_ids\": [\"" + echo + "\"]}");
            JsonNode narrowed = http.patch(
                            "/connectors/configured/" + scoped, "{\"scope\": {\"projects\": [\"" + blue + "\"]}}")
                    .json();
            assertThat(narrowed.path("detached_agents").toString())
                    .isEqualTo("[{\"prompt_id\":\"agent-1\",\"project_id\":\"" + red + "\"}]");
            assertThat(http.get("/prompts/agent-1/connections")
                            .json()
                            .path("data")
                            .findValuesAsText("gateway_id"))
                    .containsExactly(global);
            http.patch("/connectors/configured/" + scoped, "{\"scope\": {\"projects\": [\"" + red + "\"]}}");
            http.patch("/connectors/configured/" + scoped + "/toggle", "{\"enabled\": false}");
            http.post(attach, "{\"tool_ids\": [\"" + echo + "\"]}").assertError(409, "gateway_disabled", "gateway_id");

            JsonNode deleted = http.delete("/connectors/gateways/" + global).json();
            assertThat(deleted.path("agents_detached").asInt()).isEqualTo(1);
            assertThat(http.get("/prompts/agent-1/connections").json().path("data"))
                    .isEmpty();
        }
    }

    private static String gateway(TestServer http, String name, String url, String scope) {
        JsonNode created = http.post(
                        "/connectors/custom",
                        "{\"name\": \"" + name + "\", \"url\": \"" + url + "\", \"auth_type\": \"none\", \"scope\": "
                                + scope + "}")
                .json();
        assertThat(created.has("id")).as(created.toString()).isTrue();
        return created.path("id").asText();
    }

    private static Map<String, String> tools(TestServer http, String gateway) {
        assertThat(http.action("/connectors/" + gateway + "/fetch-tools").status())
                .isEqualTo(200);
        var byName = new HashMap<String, String>();
        http.get("/connectors/" + gateway + "/tools?limit=100")
                .json()
                .path("data")
                .forEach(tool ->
                        byName.put(tool.path("name").asText(), tool.path("id").asText()));
        return byName;
    }
}
