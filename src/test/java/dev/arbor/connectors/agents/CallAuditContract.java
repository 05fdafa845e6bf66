package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.EverythingServer;
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
 * The audit of tool calls through agents' endpoints (issue 40), on a real server calling the real server-everything:
 * a row for every call with who made it, the arguments' hash, how long and how it ended; listed newest first with
 * filters and cursors, a member seeing only its own projects' calls; counts and latency by tool in /metrics. Runs once
 * per database.
 */
abstract class CallAuditContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_audit_admin";

    private EverythingServer everything;
    private AdminFixture admin;
    /** The member token of my project that calls agent-mine, and its id: the identity its calls are audited under. */
    private String mineToken;

    private String mineTokenId;
    private String gateway;
    private Map<String, String> toolIds;

    CallAuditContract() {
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
        List<String> tools = List.of(ids.get("echo"), ids.get("get-sum"));
        admin.admin(
                "POST",
                "/prompts/agent-mine/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + mine + "\", \"tool_ids\": " + Json.writeString(tools) + "}");
        admin.admin(
                "POST",
                "/prompts/agent-theirs/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + theirs + "\", \"tool_ids\": " + Json.writeString(tools) + "}");
        JsonNode token = admin.memberToken(mine);
        mineToken = token.path("token").asText();
        mineTokenId = token.path("id").asText();
    }

    @AfterAll
    void stopEverything() {
        everything.close();
    }

    @Test
    void aCallIsARowWithItsIdentityAgentGatewayToolArgumentsHashDurationAndOutcome() {
        JsonNode result = call("agent-mine", mineToken, "everything__echo", "{\"message\": \"audited once\"}");
        assertThat(result.at("/content/0/text").asText()).contains("audited once");

        JsonNode row =
                calls("?prompt_id=agent-mine&limit=1", mineToken).path("data").get(0);
        assertThat(row.path("object").asText()).isEqualTo("connector.tool_call");
        assertThat(row.path("project_id").asText()).isEqualTo(mine);
        assertThat(row.path("identity").asText()).isEqualTo(mineTokenId);
        assertThat(row.path("prompt_id").asText()).isEqualTo("agent-mine");
        assertThat(row.path("gateway_id").asText()).isEqualTo(gateway);
        assertThat(row.path("tool").asText()).isEqualTo("everything__echo");
        assertThat(row.path("arguments_sha256").asText())
                .isEqualTo(Digests.sha256Hex("{\"message\":\"audited once\"}"));
        assertThat(row.has("arguments"))
                .as("the arguments themselves are not kept")
                .isFalse();
        assertThat(row.path("duration_ms").asLong()).isNotNegative();
        assertThat(row.path("outcome").asText()).isEqualTo("ok");
        assertThat(row.path("error").isNull()).isTrue();
        assertThat(row.path("called_at").asLong()).isPositive();
    }

    @Test
    void theSameArgumentsWrittenInAnotherOrderHashAlike() {
        call("agent-mine", mineToken, "everything__get-sum", "{\"a\": 1, \"b\": 2}");
        call("agent-mine", mineToken, "everything__get-sum", "{\"b\": 2, \"a\": 1}");

        List<JsonNode> rows = rows(calls("?prompt_id=agent-mine&tool=everything__get-sum&limit=2", mineToken));
        assertThat(rows)
                .extracting(r -> r.path("arguments_sha256").asText())
                .containsOnly(Digests.sha256Hex("{\"a\":1,\"b\":2}"));
    }

    @Test
    void aCallTheServerRefusesIsAToolErrorRowWithWhatTheAgentWasTold() {
        JsonNode result = call("agent-mine", mineToken, "everything__get-sum", "{\"a\": \"not a number\"}");
        assertThat(result.path("isError").asBoolean()).isTrue();

        JsonNode row = calls("?prompt_id=agent-mine&outcome=tool_error&limit=1", mineToken)
                .path("data")
                .get(0);
        assertThat(row.path("outcome").asText()).isEqualTo("tool_error");
        assertThat(row.path("error").asText())
                .isEqualTo(result.at("/content/0/text").asText());
    }

    @Test
    void aMemberSeesOnlyItsOwnProjectsCalls() {
        call("agent-theirs", ADMIN_SECRET, "everything__echo", "{\"message\": \"theirs\"}");
        call("agent-mine", mineToken, "everything__echo", "{\"message\": \"mine\"}");

        List<JsonNode> seen = rows(calls("?limit=100", mineToken));
        assertThat(seen).isNotEmpty();
        assertThat(seen).extracting(r -> r.path("project_id").asText()).containsOnly(mine);
        assertThat(rows(calls("?limit=100&project_id=" + theirs, ADMIN_SECRET)))
                .extracting(r -> r.path("prompt_id").asText())
                .contains("agent-theirs");
    }

    @Test
    void aMemberNamingAnotherProjectIsRefused() {
        http.get("/connectors/calls?project_id=" + theirs, "Authorization", "Bearer " + mineToken)
                .assertError(403, "project_forbidden", "project_id");
    }

    @Test
    void theListPagesNewestFirstWithCursors() {
        for (String message : List.of("first", "second", "third")) {
            call("agent-mine", mineToken, "everything__echo", "{\"message\": \"" + message + "\"}");
        }
        JsonNode page = calls("?prompt_id=agent-mine&limit=2", mineToken);
        assertThat(page.path("has_more").asBoolean()).isTrue();
        List<String> first = ids(page);
        List<String> next = ids(calls(
                "?prompt_id=agent-mine&limit=2&after=" + page.path("last_id").asText(), mineToken));
        assertThat(first.getFirst()).isGreaterThan(first.getLast());
        assertThat(next).isNotEmpty().doesNotContainAnyElementsOf(first);
        assertThat(next.getFirst()).isLessThan(first.getLast());
    }

    @ParameterizedTest
    @CsvSource({"outcome=maybe, 400, invalid_parameter, outcome", "after=call_unknown, 400, invalid_parameter, after"})
    void aBadFilterIsRefused(String query, int status, String code, String param) {
        http.get("/connectors/calls?" + query, "Authorization", "Bearer " + ADMIN_SECRET)
                .assertError(status, code, param);
    }

    @Test
    void metricsCountTheCallsAndTheirLatencyByToolAndOutcome() {
        call("agent-mine", mineToken, "everything__echo", "{\"message\": \"counted\"}");

        String metrics =
                http.get("/metrics", "Authorization", "Bearer " + ADMIN_SECRET).body();
        assertThat(metrics)
                .containsPattern("arbor_connector_tool_calls_seconds_count\\{[^}]*outcome=\"ok\"[^}]*"
                        + "tool=\"everything__echo\"[^}]*} [1-9]")
                .contains("arbor_connector_tool_calls_seconds_sum");
    }

    @Test
    void aDeniedToolIsNotListedAndACallToItIsRefusedAndAudited() {
        attachWithPolicies("agent-denied", "{\"" + toolIds.get("echo") + "\": {\"policy\": \"deny\"}}");

        JsonNode listed = http.post(
                        "/mcp/prompts/agent-denied",
                        "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\"}",
                        "Authorization",
                        "Bearer " + mineToken)
                .json();
        assertThat(listed.at("/result/tools").findValuesAsText("name")).containsExactly("everything__get-sum");
        JsonNode refused = call("agent-denied", mineToken, "everything__echo", "{\"message\": \"no\"}");
        assertThat(refused.path("isError").asBoolean()).isTrue();
        assertThat(refused.at("/content/0/text").asText()).contains("denied");
        JsonNode row =
                calls("?prompt_id=agent-denied&limit=1", mineToken).path("data").get(0);
        assertThat(row.path("outcome").asText()).isEqualTo("denied");
    }

    @Test
    void aToolPastItsCallsAMinuteIsRefusedUntilTheMinuteRefills() {
        attachWithPolicies("agent-limited", "{\"" + toolIds.get("echo") + "\": {\"calls_per_minute\": 2}}");

        for (int i = 0; i < 2; i++) {
            assertThat(call("agent-limited", mineToken, "everything__echo", "{\"message\": \"ok\"}")
                            .path("isError")
                            .asBoolean())
                    .isFalse();
        }
        JsonNode third = call("agent-limited", mineToken, "everything__echo", "{\"message\": \"over\"}");
        assertThat(third.path("isError").asBoolean()).isTrue();
        assertThat(third.at("/content/0/text").asText()).contains("2 times a minute");
        assertThat(call("agent-limited", mineToken, "everything__get-sum", "{\"a\": 1, \"b\": 1}")
                        .path("isError")
                        .asBoolean())
                .as("another tool of the agent has no limit")
                .isFalse();
        assertThat(rows(calls("?prompt_id=agent-limited&outcome=rate_limited", mineToken)))
                .hasSize(1);
    }

    @Test
    void theConnectionShowsEachToolsPolicy() {
        attachWithPolicies(
                "agent-shown", "{\"" + toolIds.get("echo") + "\": {\"policy\": \"deny\", \"calls_per_minute\": 5}}");

        JsonNode connection = admin.admin("GET", "/prompts/agent-shown/connections", "")
                .path("data")
                .get(0);
        var byName = new HashMap<String, JsonNode>();
        connection.path("tools").forEach(t -> byName.put(t.path("name").asText(), t));
        assertThat(byName.get("echo").path("policy").asText()).isEqualTo("deny");
        assertThat(byName.get("echo").path("calls_per_minute").asInt()).isEqualTo(5);
        assertThat(byName.get("get-sum").path("policy").asText()).isEqualTo("allow");
        assertThat(byName.get("get-sum").path("calls_per_minute").isNull()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "{\"tool_unknown\": {\"policy\": \"deny\"}}| policies.tool_unknown",
                "{\"ECHO\": {\"policy\": \"maybe\"}}| policies.ECHO.policy",
                "{\"ECHO\": {\"calls_per_minute\": 0}}| policies.ECHO.calls_per_minute",
                "{\"ECHO\": {\"calls_per_minute\": 1.5}}| policies.ECHO.calls_per_minute",
                "{\"ECHO\": {\"rate\": 1}}| policies.ECHO.rate",
                "{\"ECHO\": \"deny\"}| policies.ECHO",
                "[]| policies"
            })
    void aBadPolicyIsRefusedAtItsField(String policies, String param) {
        String echo = toolIds.get("echo");
        http.post(
                        "/prompts/agent-bad/connections/" + gateway + "/attach-tools",
                        "{\"project_id\": \"" + mine + "\", \"tool_ids\": [\"" + echo + "\"], \"policies\": "
                                + policies.replace("ECHO", echo) + "}",
                        "Authorization",
                        "Bearer " + ADMIN_SECRET)
                .assertError(400, "invalid_field", param.replace("ECHO", echo));
        assertThat(http.get("/prompts/agent-bad/connections", "Authorization", "Bearer " + ADMIN_SECRET)
                        .json()
                        .path("data"))
                .as("nothing attached")
                .isEmpty();
    }

    private void attachWithPolicies(String agent, String policies) {
        admin.admin(
                "POST",
                "/prompts/" + agent + "/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + mine + "\", \"tool_ids\": "
                        + Json.writeString(List.of(toolIds.get("echo"), toolIds.get("get-sum"))) + ", \"policies\": "
                        + policies + "}");
    }

    private JsonNode call(String agent, String token, String tool, String arguments) {
        return http.post(
                        "/mcp/prompts/" + agent,
                        "{\"jsonrpc\": \"2.0\", \"id\": 5, \"method\": \"tools/call\", \"params\": {\"name\": \"" + tool
                                + "\", \"arguments\": " + arguments + "}}",
                        "Authorization",
                        "Bearer " + token)
                .json()
                .path("result");
    }

    private JsonNode calls(String query, String token) {
        var reply = http.get("/connectors/calls" + query, "Authorization", "Bearer " + token);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private static List<JsonNode> rows(JsonNode list) {
        var rows = new ArrayList<JsonNode>();
        list.path("data").forEach(rows::add);
        return rows;
    }

    private static List<String> ids(JsonNode list) {
        return rows(list).stream().map(r -> r.path("id").asText()).toList();
    }
}
