package dev.arbor.connectors.sessions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.AdminFixture;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.NodeScript;
import dev.arbor.testing.TwoProjectsContract;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Kept sessions (issue 40): an agent's endpoint gives its MCP client a session ({@code Mcp-Session-Id}) and keeps one
 * session per (gateway, identity) with the upstream server, reused across calls and clients and reopened when the
 * server forgets it. Driven by the official MCP TypeScript SDK client against the real server-everything, whose
 * {@code toggle-simulated-logging} tool keeps state per session: through Arbor it behaves as it does direct. Runs
 * once per database.
 */
abstract class KeptSessionsContract extends TwoProjectsContract {
    private static final String ADMIN_SECRET = "arb_sessions_admin";
    private static final String AGENT = "agent-sessions";
    private static final String TOGGLE = "everything__toggle-simulated-logging";
    private static final Pattern SESSION = Pattern.compile("for session (\\S+)");

    private EverythingServer everything;
    private AdminFixture admin;

    KeptSessionsContract() {
        super(ADMIN_SECRET, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"));
    }

    @BeforeAll
    void attach() throws IOException {
        everything = EverythingServer.start("streamableHttp");
        admin = new AdminFixture(http, ADMIN_SECRET);
        String gateway = admin.create(
                "/connectors/custom",
                "{\"name\": \"Everything\", \"url\": \"" + everything.url("/mcp")
                        + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}");
        admin.admin("POST", "/connectors/" + gateway + "/fetch-tools", "");
        var ids = new ArrayList<String>();
        admin.admin("GET", "/connectors/" + gateway + "/tools?limit=100", "")
                .path("data")
                .forEach(t -> {
                    if (List.of("echo", "toggle-simulated-logging")
                            .contains(t.path("name").asText())) {
                        ids.add(t.path("id").asText());
                    }
                });
        admin.admin(
                "POST",
                "/prompts/" + AGENT + "/connections/" + gateway + "/attach-tools",
                "{\"project_id\": \"" + mine + "\", \"tool_ids\": " + Json.writeString(ids) + "}");
    }

    @AfterAll
    void stopEverything() {
        everything.close();
    }

    @Test
    void initializeGivesTheClientASessionThatOnlyItsAgentAndIdentityMayUse() {
        String ann = admin.memberToken(mine).path("token").asText();
        String bob = admin.memberToken(mine).path("token").asText();
        var initialized = http.post(
                "/mcp/prompts/" + AGENT,
                "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": "
                        + "\"2025-06-18\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"t\", \"version\": \"1\"}}}",
                "Authorization",
                "Bearer " + ann);
        String session = initialized.header("Mcp-Session-Id");
        assertThat(session).startsWith("mcps_");

        assertThat(list(ann, session).status()).isEqualTo(200);
        assertThat(list(ann, "mcps_unknown").status()).isEqualTo(404);
        var someoneElses = list(bob, session);
        assertThat(someoneElses.status()).isEqualTo(404);
        assertThat(someoneElses.json().at("/error/code").asInt()).isEqualTo(-32001);
    }

    @Test
    void aServerThatKeepsStatePerSessionBehavesThroughTheAgentAsItDoesDirect() {
        String carol = admin.memberToken(mine).path("token").asText();
        String dave = admin.memberToken(mine).path("token").asText();

        List<String> direct = toggles(client(everything.url("/mcp"), null, "toggle-simulated-logging", 2));
        assertThat(direct.get(0)).startsWith("Started");
        assertThat(direct.get(1)).startsWith("Stopped");

        JsonNode first = client(agentUrl(), carol, TOGGLE, 2);
        assertThat(first.path("sessionId").asText()).startsWith("mcps_");
        List<String> carols = toggles(first);
        assertThat(carols.get(0)).startsWith("Started");
        assertThat(carols.get(1)).startsWith("Stopped");
        assertThat(upstreamSession(carols.get(1))).isEqualTo(upstreamSession(carols.get(0)));

        // a later client of the same identity goes on on the same upstream session; another identity has its own
        List<String> again = toggles(client(agentUrl(), carol, TOGGLE, 1));
        assertThat(again.getFirst()).startsWith("Started");
        assertThat(upstreamSession(again.getFirst())).isEqualTo(upstreamSession(carols.get(0)));
        List<String> daves = toggles(client(agentUrl(), dave, TOGGLE, 1));
        assertThat(daves.getFirst()).startsWith("Started");
        assertThat(upstreamSession(daves.getFirst())).isNotEqualTo(upstreamSession(carols.get(0)));
        toggles(client(agentUrl(), carol, TOGGLE, 1)); // stops carol's logging
        toggles(client(agentUrl(), dave, TOGGLE, 1));
    }

    @Test
    void aSessionTheServerForgotIsReopenedAndTheCallGoesThrough() throws IOException {
        String erin = admin.memberToken(mine).path("token").asText();
        List<String> before = toggles(client(agentUrl(), erin, TOGGLE, 2));
        int port = everything.port();
        everything.close();
        everything = EverythingServer.start("streamableHttp", port);

        List<String> after = toggles(client(agentUrl(), erin, TOGGLE, 2));
        assertThat(after.get(0)).startsWith("Started");
        assertThat(upstreamSession(after.get(0))).isNotEqualTo(upstreamSession(before.get(0)));
        assertThat(after.get(1)).startsWith("Stopped");
    }

    private String agentUrl() {
        return "http://127.0.0.1:" + http.port() + "/mcp/prompts/" + AGENT;
    }

    private dev.arbor.testing.HttpReply list(String token, String session) {
        return http.post(
                "/mcp/prompts/" + AGENT,
                "{\"jsonrpc\": \"2.0\", \"id\": 2, \"method\": \"tools/list\"}",
                "Authorization",
                "Bearer " + token,
                "Mcp-Session-Id",
                session);
    }

    /** The TypeScript SDK's client on {@code url}: {@code times} calls of {@code tool} on one session. */
    private static JsonNode client(String url, String token, String tool, int times) {
        var input = Json.object().put("url", url);
        if (token != null) {
            input.put("token", token);
        }
        var calls = input.putArray("calls");
        for (int i = 0; i < times; i++) {
            calls.addObject().put("name", tool).putObject("arguments");
        }
        return NodeScript.run("mcp-client.cjs", input);
    }

    private static List<String> toggles(JsonNode answered) {
        var texts = new ArrayList<String>();
        answered.path("answers").forEach(answer -> {
            assertThat(answer.has("result")).as(answer.toString()).isTrue();
            texts.add(answer.at("/result/content/0/text").asText());
        });
        return texts;
    }

    private static String upstreamSession(String text) {
        Matcher matcher = SESSION.matcher(text);
        assertThat(matcher.find()).as(text).isTrue();
        return matcher.group(1);
    }
}
