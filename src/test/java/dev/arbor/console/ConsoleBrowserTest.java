package dev.arbor.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.SecuredMcpServer;
import dev.arbor.testing.StandardWebhookSigner;
import dev.arbor.testing.TestServer;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console in a real browser against a real server: signing in, what a member is offered, a gateway from the
 * registry whose tools an agent gets, and a shared event connection's signed delivery in its log. Each step is
 * asserted on what the page shows (in drive.mjs), then on what the server holds.
 */
class ConsoleBrowserTest {
    private static EverythingServer everything;
    private static ArborServer server;
    private static TestServer http;
    private static ConsoleBrowser browser;
    private static String[] admin;
    private static String adminToken;
    private static String memberToken;
    private static String projectId;

    @BeforeAll
    static void start() throws Exception {
        everything = EverythingServer.start("streamableHttp");
        server = ArborServer.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost"));
        http = server.http();
        browser = ConsoleBrowser.forServer(http, "surfaces");
        projectId = ConsoleBrowser.project(http, "support");
        adminToken = ConsoleBrowser.adminToken(http);
        admin = ConsoleBrowser.bearer(adminToken);
        memberToken = ConsoleBrowser.memberToken(http, adminToken, projectId);
        http.post("/connectors/registry", """
                {"id": "everything-test", "name": "Everything (test)", "url": "%s", "auth_type": "none",
                 "category": "testing", "description": "The MCP project's reference server, on this computer."}""".formatted(everything.url("/mcp")), admin)
                .json();
    }

    /** The configured gateway of that name. */
    private static JsonNode configured(String name) {
        for (JsonNode gateway : http.get("/connectors/configured?include_disabled=true&limit=100", admin)
                .json()
                .path("data")) {
            if (gateway.path("name").asText().equals(name)) {
                return gateway;
            }
        }
        throw new AssertionError("no gateway named " + name);
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (everything != null) {
            everything.close();
        }
    }

    @Test
    void anAdminSignsInWithATokenSeesEverySectionAndSigningOutForgetsTheToken() throws Exception {
        browser.run("admin-sign-in", Map.of("token", adminToken));
    }

    @Test
    void aWrongTokenIsRefusedWithTheServersMessageBesideTheTokenField() throws Exception {
        JsonNode said = browser.run("wrong-token", Map.of());
        assertThat(said.path("message").asText()).isNotBlank().doesNotContain("arb_not_a_token");
    }

    @Test
    void aMemberIsNotOfferedTheAdminsPages() throws Exception {
        browser.run("member-sign-in", Map.of("token", memberToken));
    }

    @Test
    void aGatewayAddedFromTheRegistryGivesAnAgentTheToolsAttachedToIt() throws Exception {
        browser.run(
                "add-gateway",
                Map.of("token", adminToken, "project", "support", "connector", "Everything (test)", "name", "Tools"));
        JsonNode gateway = configured("Tools");
        assertThat(gateway.path("connector_id").asText()).isEqualTo("everything-test");
        assertThat(gateway.at("/scope/projects").toString()).contains(projectId);

        browser.run(
                "attach-tools",
                Map.of(
                        "token",
                        memberToken,
                        "project",
                        "support",
                        "agent",
                        "support-bot",
                        "gateway",
                        "Tools",
                        "tools",
                        List.of("echo", "get-sum")));
        JsonNode connections =
                http.get("/prompts/support-bot/connections", admin).json().path("data");
        assertThat(connections).hasSize(1);
        assertThat(connections.get(0).path("tools").findValuesAsText("name")).containsExactly("echo");
    }

    @Test
    void aCustomConnectionAddedOnTheConnectionsTabReachesItsServer() throws Exception {
        String url = everything.url("/mcp");
        browser.run(
                "add-custom-connection",
                Map.of(
                        "token",
                        adminToken,
                        "project",
                        "support",
                        "name",
                        "Everything (custom)",
                        "url",
                        url,
                        "secret",
                        "Bearer custom-secret"));
        JsonNode gateway = configured("Everything (custom)");
        assertThat(gateway.path("source").asText()).isEqualTo("custom");
        assertThat(gateway.path("url").asText()).isEqualTo(url);
        assertThat(gateway.path("transport").asText()).isEqualTo("streamable_http");
        assertThat(gateway.path("auth_type").asText()).isEqualTo("headers");
        assertThat(gateway.at("/scope/projects").toString()).contains(projectId);
        assertThat(gateway.toString()).doesNotContain("custom-secret");
        // the server the form named answers with its tools
        JsonNode fetched = http.action("/connectors/" + gateway.path("id").asText() + "/fetch-tools", admin)
                .json();
        assertThat(fetched.path("total").asInt()).as(fetched.toString()).isPositive();
    }

    @Test
    void aCustomConnectionWithAnAddressTheServerRefusesShowsWhyBesideTheUrlField() throws Exception {
        JsonNode said = browser.run(
                "custom-connection-bad-url",
                Map.of("token", adminToken, "project", "support", "name", "Refused", "url", "file:///etc/passwd"));
        assertThat(said.path("message").asText()).startsWith("`url` cannot be used");
        assertThat(http.get("/connectors/configured?include_disabled=true&limit=100", admin)
                        .json()
                        .path("data")
                        .findValuesAsText("name"))
                .doesNotContain("Refused");
    }

    @Test
    void anAgentAuthorizesAGatewayWithOAuthAttachesItsToolsAndDetachesIt() throws Exception {
        try (var secured = SecuredMcpServer.start(3600)) {
            String gateway = http.post("/connectors/custom", """
                            {"name": "Secured", "url": "%s", "auth_type": "oauth",
                             "credentials": {"client_id": "arbor-console", "client_secret": "console-secret"},
                             "scope": {"projects": ["%s"]}}""".formatted(secured.mcpUrl(), projectId), admin)
                    .json()
                    .path("id")
                    .asText();
            browser.run(
                    "oauth-attach-detach",
                    Map.of(
                            "token",
                            adminToken,
                            "project",
                            "support",
                            "agent",
                            "oauth-bot",
                            "gateway",
                            "Secured",
                            "tools",
                            List.of("whoami", "add")));
            assertThat(http.get("/connectors/" + gateway + "/oauth/status", admin)
                            .json()
                            .path("status")
                            .asText())
                    .isEqualTo("authorized");
            assertThat(secured.tokensSeen()).isNotEmpty();
            assertThat(http.get("/prompts/oauth-bot/connections", admin).json().path("data"))
                    .isEmpty();
        }
    }

    @Test
    void aSharedEventConnectionShowsASignedDeliveryInItsLog() throws Exception {
        JsonNode created = browser.run(
                "event-connection",
                Map.of(
                        "token",
                        adminToken,
                        "project",
                        "support",
                        "provider",
                        "Standard Webhooks (any sender)",
                        "name",
                        "Contacts"));
        String webhookUrl = created.path("webhook_url").asText();
        String secret = created.path("signing_secret").asText();
        assertThat(webhookUrl).contains("/events/hooks/");
        assertThat(secret).startsWith("whsec_");

        String body =
                "{\"type\": \"contact.created\", \"timestamp\": \"2026-11-20T20:26:10Z\", \"data\": {\"id\": \"c1\"}}";
        long now = System.currentTimeMillis() / 1000;
        String[] signature = StandardWebhookSigner.sign(
                        List.of(new StandardWebhookSigner.Call(secret, "msg_console_1", now, body)))
                .get(0);
        assertThat(http.post(URI.create(webhookUrl).getPath(), body, signature).status())
                .isEqualTo(200);

        browser.run(
                "delivery-log",
                Map.of("token", adminToken, "project", "support", "name", "Contacts", "type", "contact.created"));
    }
}
