package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.NodeScript;
import dev.arbor.testing.TwoProjectsContract;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * An agent in {@code tool_mode: search} (issue 40): it lists two meta tools, finds its tools by what it wants to do
 * with the bundled embedding model, and calls them through {@code call_tool} under the same policy and audit as a
 * direct call; used by the official MCP TypeScript SDK client against the real server-everything. Runs once per
 * database.
 */
abstract class ToolSearchContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_search_admin";

    private EverythingServer everything;
    private AdminFixture admin;
    private String mineToken;
    private String gateway;
    private Map<String, String> toolIds;

    ToolSearchContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @BeforeAll
    void attach() throws IOException {
        everything = EverythingServer.start("streamableHttp");
        admin = new AdminFixture(http, ADMIN_SECRET);
        gateway = admin.create(
                "/connectors/custom",
                "{\"name\": \"Everything\", \"url\": \"" + everything.url("/mcp")
                        + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}");
        admin.admin("POST", "/connectors/" + gateway + "/fetch-tools", "");
        var ids = new HashMap<String, String>();
        admin.admin("GET", "/connectors/" + gateway + "/tools?limit=100", "")
                .path("data")
                .forEach(t -> ids.put(t.path("name").asText(), t.path("id").asText()));
        toolIds = Map.copyOf(ids);
        mineToken = admin.memberToken(mine).path("token").asText();
    }

    @AfterAll
    void stopEverything() {
        everything.close();
    }

    @Test
    void theTypeScriptSdkClientSeesTwoMetaToolsFindsTheRightToolAndCallsIt() {
        attach("agent-search", "search", "{}");

        List<JsonNode> results = sdk(
                "agent-search",
                "{\"listTools\": {}}",
                "{\"callTool\": {\"name\": \"search_tools\", \"arguments\": {\"query\": \"add two numbers\", \"k\": 3}}}",
                "{\"callTool\": {\"name\": \"call_tool\", \"arguments\": {\"name\": \"everything__get-sum\","
                        + " \"arguments\": {\"a\": 2, \"b\": 40}}}}");

        assertThat(names(results.get(0).path("tools"))).containsExactly("search_tools", "call_tool");
        JsonNode found = results.get(1).at("/structuredContent/tools");
        assertThat(found).hasSize(3);
        assertThat(found.get(0).path("name").asText()).isEqualTo("everything__get-sum");
        assertThat(found.get(0).at("/inputSchema/properties/a").isObject())
                .as("a found tool comes with its schema")
                .isTrue();
        assertThat(results.get(1).at("/content/0/text").asText()).contains("everything__get-sum");
        assertThat(results.get(2).at("/content/0/text").asText()).contains("42");
        JsonNode row = lastCall("agent-search");
        assertThat(row.path("tool").asText()).isEqualTo("everything__get-sum");
        assertThat(row.path("outcome").asText()).isEqualTo("ok");
    }

    @Test
    void aDeniedToolIsNeitherFoundNorCalled() {
        attach("agent-search-denied", "search", "{\"" + toolIds.get("echo") + "\": {\"policy\": \"deny\"}}");

        JsonNode found = tool("agent-search-denied", "search_tools", "{\"query\": \"echo back a message\", \"k\": 50}");
        assertThat(names(found.at("/structuredContent/tools"))).isNotEmpty().doesNotContain("everything__echo");
        JsonNode refused = tool(
                "agent-search-denied",
                "call_tool",
                "{\"name\": \"everything__echo\", \"arguments\": {\"message\": \"no\"}}");
        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asText()).contains("denied");
        assertThat(lastCall("agent-search-denied").path("outcome").asText()).isEqualTo("denied");
    }

    @Test
    void callToolWithAToolTheAgentLacksIsAToolErrorItCanRead() {
        attach("agent-search-lacks", "search", "{}");

        JsonNode refused = tool("agent-search-lacks", "call_tool", "{\"name\": \"everything__nothing\"}");

        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asText()).contains("has no tool 'everything__nothing'");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{}| `query` must be",
                "{\"query\": 5}| `query` must be",
                "{\"query\": \"  \"}| `query` must be",
                "{\"query\": \"sum\", \"k\": 0}| `k` must be a whole number from 1 to 50",
                "{\"query\": \"sum\", \"k\": 51}| `k` must be a whole number from 1 to 50",
                "{\"query\": \"sum\", \"k\": \"three\"}| `k` must be a whole number from 1 to 50"
            })
    void badSearchArgumentsAreAToolErrorSayingWhatIsWrong(String arguments, String says) {
        attach("agent-search-bad", "search", "{}");

        JsonNode refused = tool("agent-search-bad", "search_tools", arguments);

        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asText()).contains(says);
    }

    @Test
    void toolModeAllListsTheToolsAgainAndTheConnectionShowsTheMode() {
        attach("agent-search-back", "search", "{}");
        assertThat(listed("agent-search-back")).containsExactly("search_tools", "call_tool");

        JsonNode connection = attach("agent-search-back", "all", "{}");

        assertThat(connection.path("tool_mode").asText()).isEqualTo("all");
        assertThat(listed("agent-search-back")).contains("everything__echo", "everything__get-sum");
        assertThat(tool("agent-search-back", "search_tools", "{\"query\": \"sum\"}")
                        .path("message")
                        .asText())
                .as("the meta tools are gone with the mode")
                .contains("has no tool 'search_tools'");
    }

    @Test
    void anAttachmentWithoutAModeKeepsTheAgentsMode() {
        attach("agent-search-kept", "search", "{}");

        JsonNode connection = admin.admin(
                "POST",
                "/prompts/agent-search-kept/connections/" + gateway + "/attach-tools",
                "{\"tool_ids\": [\"" + toolIds.get("echo") + "\"]}");

        assertThat(connection.path("tool_mode").asText()).isEqualTo("search");
        assertThat(listed("agent-search-kept")).containsExactly("search_tools", "call_tool");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {"\"some\"", "5", "[\"search\"]"})
    void aBadToolModeIsRefusedAtItsField(String mode) {
        http.post(
                        "/prompts/agent-search-refused/connections/" + gateway + "/attach-tools",
                        "{\"project_id\": \"" + mine + "\", \"tool_ids\": [], \"tool_mode\": " + mode + "}",
                        "Authorization",
                        "Bearer " + ADMIN_SECRET)
                .assertError(400, "invalid_field", "tool_mode");
    }

    /** Attaches every tool of server-everything to {@code agent} in my project, in {@code mode}. */
    private JsonNode attach(String agent, String mode, String policies) {
        return admin.admin(
                "POST",
                "/prompts/" + agent + "/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + mine + "\", \"tool_mode\": \"" + mode + "\", \"tool_ids\": "
                        + Json.writeString(List.copyOf(toolIds.values())) + ", \"policies\": " + policies + "}");
    }

    private List<JsonNode> sdk(String agent, String... steps) {
        JsonNode input = Json.read("{\"url\": \"http://127.0.0.1:" + http.port() + "/mcp/prompts/" + agent
                + "\", \"token\": \"" + mineToken + "\", \"steps\": [" + String.join(", ", steps) + "]}");
        var results = new ArrayList<JsonNode>();
        NodeScript.run("mcp-steps.cjs", input).path("results").forEach(results::add);
        return results;
    }

    private List<String> listed(String agent) {
        return names(http.post(
                        "/mcp/prompts/" + agent,
                        "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\"}",
                        "Authorization",
                        "Bearer " + mineToken)
                .json()
                .at("/result/tools"));
    }

    /** The names of a list of tools (not the names inside their schemas). */
    private static List<String> names(JsonNode tools) {
        var names = new ArrayList<String>();
        tools.forEach(tool -> names.add(tool.path("name").asText()));
        return names;
    }

    /** Calls one tool of {@code agent} over plain JSON-RPC; the result, or the JSON-RPC error when there is one. */
    private JsonNode tool(String agent, String name, String arguments) {
        JsonNode answer = http.post(
                        "/mcp/prompts/" + agent,
                        "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": {\"name\": \"" + name
                                + "\", \"arguments\": " + arguments + "}}",
                        "Authorization",
                        "Bearer " + mineToken)
                .json();
        return answer.has("error") ? answer.path("error") : answer.path("result");
    }

    private JsonNode lastCall(String agent) {
        return http.get("/connectors/calls?limit=1&prompt_id=" + agent, "Authorization", "Bearer " + mineToken)
                .json()
                .path("data")
                .get(0);
    }
}
