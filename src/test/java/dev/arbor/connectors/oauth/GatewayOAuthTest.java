package dev.arbor.connectors.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.AgentClient;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.SecuredMcpServer;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * OAuth of gateways end to end: a real MCP server (the Java SDK's, in-process) that takes only tokens of a real
 * authorization server (mock-oauth2-server, in-process); discovery from the server's 401, PKCE, the code exchanged,
 * tokens sealed, tools fetched, agents served with the token, refresh before expiry and after a refusal, dynamic
 * client registration, and every way a state or a code can be wrong.
 */
class GatewayOAuthTest {
    private static final String[] ADMIN = {"Authorization", "Bearer admin-secret-1"};
    private static final String RETURN = "http://localhost:5173/connections/oauth";

    @Test
    void anAuthorizedGatewayServesItsToolsWithTheTokenAndRefreshesItBeforeItExpires() throws Exception {
        var clock = new MovableClock();
        try (var secured = SecuredMcpServer.start(3600);
                var server = ArborServer.start(env(), clock)) {
            TestServer http = server.http();
            String project = http.newProject("red", ADMIN);
            String gateway = gateway(
                    http,
                    secured,
                    "{\"client_id\": \"arbor-console\", \"client_secret\": " + "\"console-secret\"}",
                    "{\"projects\": [\"" + project + "\"]}");

            JsonNode before =
                    http.get("/connectors/" + gateway + "/oauth/status", ADMIN).json();
            assertThat(before.path("status").asText()).isEqualTo("unauthorized");
            assertThat(before.path("configured").asBoolean()).isTrue();
            assertThat(before.path("client").asText()).isEqualTo("configured");
            assertThat(configured(http, gateway).path("authorization").asText()).isEqualTo("unauthorized");
            http.action("/connectors/" + gateway + "/fetch-tools", ADMIN)
                    .assertError(409, "oauth_required", "gateway_id");

            JsonNode started = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json();
            String url = started.path("authorization_url").asText();
            assertThat(url)
                    .startsWith(secured.issuer())
                    .contains(
                            "code_challenge_method=S256",
                            "client_id=arbor-console",
                            "resource=" + encoded(secured.mcpUrl()),
                            "scope=openid+tools",
                            "state=" + started.path("state").asText());
            assertThat(started.path("expires_in").asInt()).isBetween(590, 600);
            assertThat(http.get("/connectors/" + gateway + "/oauth/status", ADMIN)
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("pending");

            Map<String, String> back = secured.consent(url);
            assertThat(back.get("state")).isEqualTo(started.path("state").asText());
            JsonNode done = http.post(
                            "/connectors/oauth/callback",
                            "{\"code\": \"" + back.get("code") + "\", \"state\": \"" + back.get("state") + "\"}",
                            ADMIN)
                    .json();
            assertThat(done.path("status").asText()).isEqualTo("authorized");
            assertThat(done.path("authorization_server").asText()).isEqualTo(secured.issuer());
            assertThat(done.path("authorized_by").asText()).isEqualTo("env");
            assertThat(done.path("refreshable").asBoolean()).isTrue();
            assertThat(done.path("expires_at").asLong() * 1000 - clock.millis()).isBetween(3_500_000L, 3_600_000L);
            assertThat(done.at("/tools/added").toString()).contains("\"whoami\"", "\"add\"");
            assertThat(secured.tokenRequests()).contains("authorization_code arbor-console");
            assertThat(configured(http, gateway).path("authorization").asText()).isEqualTo("authorized");

            // a state finishes once
            http.post(
                            "/connectors/oauth/callback",
                            "{\"code\": \"" + back.get("code") + "\", \"state\": \"" + back.get("state") + "\"}",
                            ADMIN)
                    .assertError(400, "invalid_oauth_state", "state");

            // an agent of the project calls the tool through its endpoint, with the gateway's token
            String whoami = tool(http, gateway, "whoami");
            http.post(
                    "/prompts/agent-1/connections/" + gateway + "/attach-tools",
                    "{\"project_id\": \"" + project + "\", \"tool_ids\": [\"" + whoami + "\"]}",
                    ADMIN);
            String agentToken = http.post(
                            "/auth/tokens",
                            "{\"name\": \"agent\", \"role\": \"member\", " + "\"projects\": [\"" + project + "\"]}",
                            ADMIN)
                    .json()
                    .path("token")
                    .asText();
            try (McpSyncClient agent = AgentClient.connect(http, "agent-1", agentToken)) {
                agent.initialize();
                assertThat(text(agent.callTool(call("secured__whoami")))).isEqualTo("subject=alice");
                String first = secured.tokensSeen().getLast();

                // within a minute of expiry the token is refreshed before it is used
                clock.advance(Duration.ofMinutes(59).plusSeconds(10));
                assertThat(text(agent.callTool(call("secured__whoami")))).isEqualTo("subject=alice");
                String second = secured.tokensSeen().getLast();
                assertThat(second).isNotEqualTo(first);
                assertThat(secured.tokenRequests()).contains("refresh_token arbor-console");
                assertThat(http.get("/connectors/" + gateway + "/oauth/status", ADMIN)
                                .json()
                                .path("refreshed_at")
                                .isNumber())
                        .isTrue();

                // the sweep refreshes a token within five minutes of expiry without a call
                clock.advance(Duration.ofMinutes(56));
                server.refreshOAuthTokens();
                long refreshes = secured.tokenRequests().stream()
                        .filter(r -> r.startsWith("refresh_token"))
                        .count();
                assertThat(refreshes).isGreaterThanOrEqualTo(2);
                assertThat(text(agent.callTool(call("secured__whoami")))).isEqualTo("subject=alice");
                String third = secured.tokensSeen().getLast();
                assertThat(third).isNotIn(first, second);

                // a token the server refuses is refreshed, and the call goes through
                secured.refuse(third);
                int refusals = secured.unauthorizedCount();
                assertThat(text(agent.callTool(call("secured__whoami")))).isEqualTo("subject=alice");
                assertThat(secured.unauthorizedCount()).isGreaterThan(refusals);
                assertThat(secured.tokensSeen().getLast()).isNotIn(first, second, third);
            }

            // tokens are sealed: none is in the database file in the clear
            for (String token : secured.tokensSeen()) {
                assertThat(databaseText(server)).doesNotContain(token);
            }

            // disconnecting forgets the tokens: agents' calls and fetches need a new authorization
            JsonNode disconnected =
                    http.delete("/connectors/" + gateway + "/oauth", ADMIN).json();
            assertThat(disconnected.path("disconnected").asBoolean()).isTrue();
            assertThat(disconnected.path("status").asText()).isEqualTo("unauthorized");
            http.action("/connectors/" + gateway + "/fetch-tools", ADMIN)
                    .assertError(409, "oauth_required", "gateway_id");
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aServerThatLetsClientsRegisterGetsOneClientPerReturnAddressAndARefusedRefreshNeedsANewAuthorization(
            Dialect dialect) throws Exception {
        var clock = new MovableClock();
        var env = new HashMap<>(env());
        if (dialect == Dialect.POSTGRESQL) {
            env.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
        }
        try (var secured = SecuredMcpServer.startWithRegistration(600);
                var server = ArborServer.start(env, clock)) {
            TestServer http = server.http();
            String gateway = gateway(http, secured, "{}", "{\"global\": true}");

            String first = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            assertThat(first).contains("client_id=registered-1");
            assertThat(secured.registrations()).containsExactly("[\"" + RETURN + "\"]");
            String again = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            assertThat(again).contains("client_id=registered-1");
            String elsewhere = "https://127.0.0.1:8443/done";
            String other = http.post(
                            "/connectors/" + gateway + "/oauth/initiate",
                            "{\"return_url\": \"" + elsewhere + "\"}",
                            ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            assertThat(other).contains("client_id=registered-2");
            assertThat(secured.registrations()).hasSize(2).last().asString().contains(RETURN, elsewhere);

            Map<String, String> back = secured.consent(other);
            JsonNode done =
                    http.post("/connectors/oauth/callback", json(back), ADMIN).json();
            assertThat(done.path("status").asText()).isEqualTo("authorized");
            assertThat(done.path("client").asText()).isEqualTo("registered");
            assertThat(secured.tokenRequests()).contains("authorization_code registered-2");

            // the authorization server revokes the refresh token: the gateway needs authorizing again
            secured.refuseRefresh();
            clock.advance(Duration.ofMinutes(9).plusSeconds(30));
            http.action("/connectors/" + gateway + "/fetch-tools", ADMIN)
                    .assertError(409, "oauth_required", "gateway_id");
            JsonNode status =
                    http.get("/connectors/" + gateway + "/oauth/status", ADMIN).json();
            assertThat(status.path("status").asText()).isEqualTo("failed");
            assertThat(status.at("/error/message").asText()).contains("invalid_grant");
        }
    }

    @Test
    void statesThatAreReusedExpiredOrSomeoneElsesChangeNothing() throws Exception {
        var clock = new MovableClock();
        try (var secured = SecuredMcpServer.start(3600);
                var server = ArborServer.start(env(), clock)) {
            TestServer http = server.http();
            String project = http.newProject("red", ADMIN);
            String gateway = gateway(
                    http, secured, "{\"client_id\": \"arbor-console\"}", "{\"projects\": [\"" + project + "\"]}");
            String[] member = {
                "Authorization",
                "Bearer "
                        + http.post(
                                        "/auth/tokens",
                                        "{\"name\": \"m\", \"role\": " + "\"member\", \"projects\": [\"" + project
                                                + "\"]}",
                                        ADMIN)
                                .json()
                                .path("token")
                                .asText()
            };

            // started by the admin, finished by a member: refused, and the admin can still finish it
            String url = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            Map<String, String> back = secured.consent(url);
            http.post("/connectors/oauth/callback", json(back), member)
                    .assertError(400, "invalid_oauth_state", "state");
            assertThat(status(http, gateway)).isEqualTo("pending");
            http.post(
                            "/connectors/oauth/callback",
                            "{\"code\": \"x\", \"state\": \"" + back.get("state")
                                    + "\", \"iss\": \"https://elsewhere.example\"}",
                            ADMIN)
                    .assertError(400, "invalid_field", "iss");
            http.post("/connectors/oauth/callback", json(back), ADMIN);
            assertThat(status(http, gateway)).isEqualTo("authorized");

            // a member of the project may authorize it too
            String byMember = http.post(
                            "/connectors/" + gateway + "/oauth/initiate",
                            "{\"return_url\": \"" + RETURN + "\"}",
                            member)
                    .json()
                    .path("authorization_url")
                    .asText();
            JsonNode memberDone = http.post("/connectors/oauth/callback", json(secured.consent(byMember)), member)
                    .json();
            assertThat(memberDone.path("authorized_by").asText())
                    .isNotEqualTo("env")
                    .isNotBlank();

            // expired after ten minutes
            String late = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            Map<String, String> lateBack = secured.consent(late);
            clock.advance(Duration.ofMinutes(11));
            http.post("/connectors/oauth/callback", json(lateBack), ADMIN)
                    .assertError(400, "invalid_oauth_state", "state");
            http.post("/connectors/oauth/callback", "{\"code\": \"c\", \"state\": \"never-issued\"}", ADMIN)
                    .assertError(400, "invalid_oauth_state", "state");

            // the user said no, or the code is wrong: recorded, and the status says failed
            String denied = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("state")
                    .asText();
            http.post(
                            "/connectors/oauth/callback",
                            "{\"state\": \"" + denied + "\", \"error\": \"access_denied\"}",
                            ADMIN)
                    .assertError(400, "oauth_rejected", "error");
            String wrong = http.post(
                            "/connectors/" + gateway + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .json()
                    .path("state")
                    .asText();
            http.post("/connectors/oauth/callback", "{\"state\": \"" + wrong + "\", \"code\": \"not-a-code\"}", ADMIN)
                    .assertError(400, "oauth_rejected", "code");
            JsonNode failed =
                    http.get("/connectors/" + gateway + "/oauth/status", ADMIN).json();
            assertThat(failed.at("/error/code").asText()).isEqualTo("oauth_rejected");

            // new credentials: the tokens got with the old ones are forgotten
            assertThat(status(http, gateway)).isEqualTo("authorized");
            http.patch("/connectors/configured/" + gateway, "{\"credentials\": {\"client_id\": \"arbor-2\"}}", ADMIN);
            assertThat(status(http, gateway)).isEqualTo("unauthorized");

            http.post("/connectors/oauth/callback", "{\"code\": \"c\"}", ADMIN)
                    .assertError(400, "missing_field", "state");
            http.post("/connectors/oauth/callback", "{\"state\": \"s\"}", ADMIN)
                    .assertError(400, "missing_field", "code");
            http.post("/connectors/oauth/callback", "{\"state\": 7, \"code\": \"c\"}", ADMIN)
                    .assertError(400, "invalid_field", "state");
            http.post("/connectors/oauth/callback", "{\"state\": \"s\", \"code\": \"c\", \"extra\": 1}", ADMIN)
                    .assertError(400, "invalid_field", "extra");
        }
    }

    @Test
    void initiateChecksTheGatewayTheReturnAddressAndTheServer() throws Exception {
        try (var secured = SecuredMcpServer.start(3600);
                var server = ArborServer.start(env())) {
            TestServer http = server.http();
            String red = http.newProject("red", ADMIN);
            String blue = http.newProject("blue", ADMIN);
            String gateway = gateway(http, secured, "{}", "{\"projects\": [\"" + red + "\"]}");
            String path = "/connectors/" + gateway + "/oauth/initiate";

            // the mock lets no client register: without a client id there is nothing to authorize with
            http.post(path, "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .assertError(409, "oauth_client_required", "gateway_id");
            http.patch(
                    "/connectors/configured/" + gateway,
                    "{\"credentials\": {\"client_id\": \"arbor-console\"}}",
                    ADMIN);
            assertThat(http.post(path, "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                            .json()
                            .path("authorization_url")
                            .asText())
                    .contains("client_id=arbor-console");
            http.post(path, "{}", ADMIN).assertError(400, "missing_field", "return_url");
            for (String bad : new String[] {
                "https://evil.example/cb",
                "http://admin.example.com/cb",
                "javascript:alert(1)",
                "ftp://localhost/cb",
                "not a url",
                "http://localhost:5173/cb#frag"
            }) {
                http.post(path, "{\"return_url\": \"" + bad + "\"}", ADMIN)
                        .assertError(400, "invalid_field", "return_url");
            }
            http.post(path, "{\"return_url\": \"" + RETURN + "\", \"scope\": \"x\"}", ADMIN)
                    .assertError(400, "invalid_field", "scope");
            http.post("/connectors/gw_nope/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .assertError(404, "gateway_not_found", "gateway_id");
            http.get("/connectors/gw_nope/oauth/status", ADMIN).assertError(404, "gateway_not_found", "gateway_id");

            String[] outsider = {
                "Authorization",
                "Bearer "
                        + http.post(
                                        "/auth/tokens",
                                        "{\"name\": \"b\", " + "\"role\": \"member\", \"projects\": [\"" + blue
                                                + "\"]}",
                                        ADMIN)
                                .json()
                                .path("token")
                                .asText()
            };
            http.post(path, "{\"return_url\": \"" + RETURN + "\"}", outsider)
                    .assertError(403, "project_forbidden", "gateway_id");
            http.get("/connectors/" + gateway + "/oauth/status", outsider)
                    .assertError(403, "project_forbidden", "gateway_id");
            // the tools too: a member of the gateway's project may fetch and list them, another may not
            http.get("/connectors/" + gateway + "/tools", outsider).assertError(403, "project_forbidden", "gateway_id");
            http.action("/connectors/" + gateway + "/fetch-tools", outsider)
                    .assertError(403, "project_forbidden", "gateway_id");
            String[] member = {
                "Authorization",
                "Bearer "
                        + http.post(
                                        "/auth/tokens",
                                        "{\"name\": \"r\", " + "\"role\": \"member\", \"projects\": [\"" + red + "\"]}",
                                        ADMIN)
                                .json()
                                .path("token")
                                .asText()
            };
            assertThat(http.get("/connectors/" + gateway + "/tools", member)
                            .json()
                            .path("data"))
                    .isEmpty();
            http.action("/connectors/" + gateway + "/fetch-tools", member)
                    .assertError(409, "oauth_required", "gateway_id");

            String open = http.post(
                            "/connectors/custom",
                            "{\"name\": \"Open\", \"url\": \"" + secured.mcpUrl()
                                    + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}",
                            ADMIN)
                    .json()
                    .path("id")
                    .asText();
            http.post("/connectors/" + open + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .assertError(409, "oauth_not_required", "gateway_id");
            assertThat(status(http, open)).isEqualTo("not_required");
            http.delete("/connectors/" + open + "/oauth", ADMIN).assertError(409, "oauth_not_required", "gateway_id");

            String withClient = gateway(http, secured, "{\"client_id\": \"c\"}", "{\"global\": true}");
            http.patch("/connectors/configured/" + withClient + "/toggle", "{\"enabled\": false}", ADMIN);
            http.post("/connectors/" + withClient + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .assertError(409, "gateway_disabled", "gateway_id");

            // an MCP server that is not there
            String gone = http.post(
                            "/connectors/custom",
                            "{\"name\": \"Gone\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"auth_type\": \"oauth\", \"credentials\": {\"client_id\": \"c\"}, \"scope\": {\"global\": "
                                    + "true}}",
                            ADMIN)
                    .json()
                    .path("id")
                    .asText();
            http.post("/connectors/" + gone + "/oauth/initiate", "{\"return_url\": \"" + RETURN + "\"}", ADMIN)
                    .assertError(502, "upstream_unavailable", "gateway_id");
        }
    }

    private static Map<String, String> env() {
        return Map.of(
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1,localhost",
                "ARBOR_ADMIN_TOKEN",
                "admin-secret-1",
                "ARBOR_OAUTH_RETURN_HOSTS",
                "localhost,127.0.0.1");
    }

    private static String gateway(TestServer http, SecuredMcpServer secured, String credentials, String scope) {
        return http.post(
                        "/connectors/custom",
                        "{\"name\": \"Secured\", \"url\": \"" + secured.mcpUrl()
                                + "\", \"auth_type\": \"oauth\", \"credentials\": " + credentials + ", \"scope\": "
                                + scope + "}",
                        ADMIN)
                .json()
                .path("id")
                .asText();
    }

    private static JsonNode configured(TestServer http, String gateway) {
        for (JsonNode row :
                http.get("/connectors/configured?limit=100", ADMIN).json().path("data")) {
            if (row.path("id").asText().equals(gateway)) {
                return row;
            }
        }
        throw new AssertionError("gateway " + gateway + " is not listed");
    }

    private static String status(TestServer http, String gateway) {
        return http.get("/connectors/" + gateway + "/oauth/status", ADMIN)
                .json()
                .path("status")
                .asText();
    }

    private static String tool(TestServer http, String gateway, String name) {
        for (JsonNode tool : http.get("/connectors/" + gateway + "/tools?limit=100", ADMIN)
                .json()
                .path("data")) {
            if (tool.path("name").asText().equals(name)) {
                return tool.path("id").asText();
            }
        }
        throw new AssertionError("no tool " + name);
    }

    private static String json(Map<String, String> back) {
        return "{\"code\": \"" + back.get("code") + "\", \"state\": \"" + back.get("state") + "\"}";
    }

    private static String encoded(String url) {
        return java.net.URLEncoder.encode(url, StandardCharsets.UTF_8);
    }

    private static McpSchema.CallToolRequest call(String tool) {
        return McpSchema.CallToolRequest.builder(tool).arguments(Map.of()).build();
    }

    private static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().getFirst()).text();
    }

    private static String databaseText(ArborServer server) throws Exception {
        var text = new StringBuilder();
        try (Stream<Path> files = Files.list(server.dataDir())) {
            for (Path file : files.filter(f -> f.getFileName().toString().contains("arbor.db"))
                    .toList()) {
                text.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            }
        }
        assertThat(text).isNotEmpty();
        return text.toString();
    }
}
