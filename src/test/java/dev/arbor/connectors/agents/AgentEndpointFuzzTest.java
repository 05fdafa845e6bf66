package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.JsonMutator;
import dev.arbor.testing.TwoProjectsContract;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * An agent's endpoint fed seeded random JSON-RPC (issue 40): valid messages of every method it knows, each mutated
 * somewhere (a field dropped, added or given another JSON value of any type, with troublesome strings), batches,
 * bodies that are not JSON. Whatever comes, the answer is never a 500 and is a JSON-RPC message: a result or an error
 * with its code, or 202 for a notification.
 */
class AgentEndpointFuzzTest extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_fuzz_admin";
    private static final long SEED = 40L;
    private static final int MESSAGES = 400;
    private static final List<String> VALID = List.of(
            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\":"
                    + " \"2025-06-18\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"fuzz\", \"version\": \"1\"}}}",
            "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"ping\"}",
            "{\"jsonrpc\": \"2.0\", \"id\": 3, \"method\": \"tools/list\", \"params\": {}}",
            "{\"jsonrpc\": \"2.0\", \"id\": 4, \"method\": \"tools/call\", \"params\": {\"name\": \"everything__echo\","
                    + " \"arguments\": {\"message\": \"hi\"}}}",
            "{\"jsonrpc\": \"2.0\", \"id\": \"s\", \"method\": \"tools/call\", \"params\": {\"name\": \"search_tools\","
                    + " \"arguments\": {\"query\": \"add numbers\", \"k\": 2}}}",
            "{\"jsonrpc\": \"2.0\", \"id\": 6, \"method\": \"tools/call\", \"params\": {\"name\": \"call_tool\","
                    + " \"arguments\": {\"name\": \"everything__get-sum\", \"arguments\": {\"a\": 1, \"b\": 2}}}}",
            "{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}");
    private static final List<String> STRINGS = List.of(
            "",
            "tools/call",
            "search_tools",
            "call_tool",
            "everything__echo",
            "\u0000",
            "💥",
            "a".repeat(70_000),
            "../../etc/passwd",
            "{\"nested\": \"json\"}",
            "-1",
            "1e309",
            "null");

    private EverythingServer everything;

    AgentEndpointFuzzTest() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @Override
    protected Map<String, String> database() {
        return Map.of();
    }

    @BeforeAll
    void attach() throws IOException {
        everything = EverythingServer.start("streamableHttp");
        var admin = new AdminFixture(http, ADMIN_SECRET);
        String gateway = admin.create(
                "/connectors/custom",
                "{\"name\": \"Everything\", \"url\": \"" + everything.url("/mcp")
                        + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}");
        admin.admin("POST", "/connectors/" + gateway + "/fetch-tools", "");
        var ids = new ArrayList<String>();
        admin.admin("GET", "/connectors/" + gateway + "/tools?limit=100", "")
                .path("data")
                .forEach(t -> {
                    if (List.of("echo", "get-sum").contains(t.path("name").asText())) {
                        ids.add(t.path("id").asText());
                    }
                });
        for (String[] agent :
                List.of(new String[] {"agent-fuzz-all", "all"}, new String[] {"agent-fuzz-search", "search"})) {
            admin.admin(
                    "POST",
                    "/prompts/" + agent[0] + "/connections/" + gateway + "/attach-tools",
                    "{\"project_id\": \"" + mine + "\", \"tool_mode\": \"" + agent[1] + "\", \"tool_ids\": "
                            + Json.writeString(ids) + "}");
        }
    }

    @AfterAll
    void stopEverything() {
        everything.close();
    }

    @Test
    void mutatedMessagesAreAnsweredWithJsonRpcNeverA500() {
        var random = new Random(SEED);
        var mutator = new JsonMutator(random, STRINGS);
        for (int i = 0; i < MESSAGES; i++) {
            JsonNode message = Json.read(VALID.get(random.nextInt(VALID.size())));
            for (int m = 0, times = 1 + random.nextInt(3); m < times; m++) {
                mutator.mutate(message);
            }
            String agent = random.nextBoolean() ? "agent-fuzz-all" : "agent-fuzz-search";
            assertJsonRpc(agent, Json.writeString(message));
        }
    }

    @Test
    void batchesAndBodiesThatAreNotOneRequestAreJsonRpcErrors() {
        for (String body : List.of(
                "[" + VALID.get(1) + ", " + VALID.get(2) + "]",
                "[]",
                "null",
                "42",
                "\"tools/list\"",
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": 7}",
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": [1, 2]}",
                "{\"jsonrpc\": \"2.0\", \"id\": {\"an\": \"object\"}, \"method\": \"ping\"}",
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/list\"",
                "\u0000\u0001",
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"" + "x".repeat(1_000_000) + "\"}")) {
            assertJsonRpc("agent-fuzz-all", body);
        }
    }

    private void assertJsonRpc(String agent, String body) {
        HttpReply reply = http.post("/mcp/prompts/" + agent, body, "Authorization", "Bearer " + ADMIN_SECRET);
        String shown = body.length() > 300 ? body.substring(0, 300) + "…" : body;
        assertThat(reply.status()).as(shown + " -> " + reply.body()).isLessThan(500);
        if (reply.status() == 202) {
            return;
        }
        JsonNode answer = reply.json();
        if (answer.has("result")) {
            assertThat(answer.path("jsonrpc").asText()).as(shown).isEqualTo("2.0");
            return;
        }
        assertThat(answer.at("/error/code").isInt())
                .as(shown + " -> " + reply.status() + " " + reply.body())
                .isTrue();
    }
}
