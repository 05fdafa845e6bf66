package dev.arbor.connectors.gateways;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.TestServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A gateway to a local MCP server run as a command over stdio (the real server-everything under node): only commands
 * the installation allows, its environment sealed and nothing of this server's own environment passed on, its tools
 * fetched and called through an agent's endpoint.
 */
class StdioGatewayTest {
    private static final List<String> INHERITED =
            List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ");

    @Test
    void aStdioServerRunsWithItsOwnEnvironmentOnly() throws Exception {
        try (var server = ArborServer.start(Map.of("ARBOR_MCP_STDIO_COMMANDS", "node"))) {
            TestServer http = server.http();
            JsonNode created = http.post(
                            "/connectors/custom",
                            "{\"name\": \"Everything local\", \"transport\": "
                                    + "\"stdio\", \"command\": \"node\", \"args\": [\"" + EverythingServer.script()
                                    + "\", \"stdio\"], "
                                    + "\"credentials\": {\"env\": [{\"key\": \"GREETING\", \"value\": \"hello-from-env\"}]}, "
                                    + "\"scope\": {\"global\": true}}")
                    .json();
            String gateway = created.path("id").asText();
            assertThat(created.path("url").isNull()).isTrue();
            assertThat(created.path("command").asText()).isEqualTo("node");
            assertThat(created.path("args").get(1).asText()).isEqualTo("stdio");
            assertThat(created.path("auth_type").asText()).isEqualTo("none");
            assertThat(created.at("/credentials/env").toString())
                    .isEqualTo("[{\"key\":\"GREETING\",\"value_set\":true}]");
            assertThat(created.toString()).doesNotContain("hello-from-env");

            JsonNode fetched =
                    http.action("/connectors/" + gateway + "/fetch-tools").json();
            assertThat(fetched.path("added").toString()).contains("\"echo\"", "\"get-env\"");
            var ids = new java.util.HashMap<String, String>();
            http.get("/connectors/" + gateway + "/tools?limit=100")
                    .json()
                    .path("data")
                    .forEach(t -> ids.put(t.path("name").asText(), t.path("id").asText()));
            String project = http.post("/projects", "{\"name\": \"red\"}")
                    .json()
                    .path("id")
                    .asText();
            http.post(
                    "/prompts/agent-9/connections/" + gateway + "/attach-tools",
                    "{\"project_id\": \"" + project + "\", \"tool_ids\": [\"" + ids.get("get-env") + "\"]}");
            String env = http.post(
                            "/mcp/prompts/agent-9",
                            "{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "
                                    + "\"tools/call\", \"params\": {\"name\": \"everything-local__get-env\", \"arguments\": {}}}")
                    .json()
                    .at("/result/content/0/text")
                    .asText();
            assertThat(env).contains("hello-from-env");
            System.getenv().keySet().stream()
                    .filter(name -> !INHERITED.contains(name))
                    .forEach(name -> assertThat(env)
                            .as("this server's %s reaches the stdio server", name)
                            .doesNotContain("\"" + name + "\""));

            try (Stream<Path> files = Files.list(server.dataDir())) {
                for (Path file : files.filter(f -> f.getFileName().toString().startsWith("arbor.db"))
                        .toList()) {
                    assertThat(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1))
                            .doesNotContain("hello-from-env");
                }
            }

            // the process kept for the agent's calls ends with its gateway
            assertThat(stdioServers()).isEqualTo(1);
            http.delete("/connectors/gateways/" + gateway);
            await().atMost(Duration.ofSeconds(20)).until(() -> stdioServers() == 0);
        }
    }

    private static long stdioServers() {
        return ProcessHandle.current()
                .descendants()
                .filter(p -> p.info()
                        .arguments()
                        .map(args -> List.of(args).contains("stdio"))
                        .orElse(false))
                .count();
    }

    @Test
    void onlyAllowedCommandsRunAndStdioTakesNoAddress() {
        try (var server = ArborServer.start(Map.of("ARBOR_MCP_STDIO_COMMANDS", "node"));
                var closed = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            http.post("/connectors/custom", "{\"name\": \"Shell\", \"transport\": \"stdio\", \"command\": \"bash\"}")
                    .assertError(400, "invalid_field", "command");
            http.post("/connectors/custom", "{\"name\": \"S\", \"transport\": \"stdio\"}")
                    .assertError(400, "missing_field", "command");
            http.post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"transport\": \"stdio\", \"command\": \"node\", "
                                    + "\"url\": \"https://example.com/mcp\"}")
                    .assertError(400, "invalid_field", "url");
            http.post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"transport\": \"stdio\", \"command\": \"node\", "
                                    + "\"auth_type\": \"headers\"}")
                    .assertError(400, "invalid_field", "auth_type");
            http.post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"transport\": \"stdio\", \"command\": \"node\", " + "\"args\": [1]}")
                    .assertError(400, "invalid_field", "args");
            http.post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"transport\": \"stdio\", \"command\": \"node\", "
                                    + "\"credentials\": {\"env\": [{\"key\": \"1BAD\", \"value\": \"x\"}]}}")
                    .assertError(400, "invalid_field", "credentials.env[0]");
            http.post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"url\": \"https://example.com/mcp\", \"auth_type\": "
                                    + "\"none\", \"command\": \"node\"}")
                    .assertError(400, "invalid_field", "command");
            http.post(
                            "/connectors/registry",
                            "{\"id\": \"local-x\", \"name\": \"X\", \"url\": "
                                    + "\"https://example.com/mcp\", \"transport\": \"stdio\", \"auth_type\": \"none\"}")
                    .assertError(400, "invalid_field", "transport");
            closed.http()
                    .post(
                            "/connectors/custom",
                            "{\"name\": \"S\", \"transport\": \"stdio\", \"command\": " + "\"node\"}")
                    .assertError(400, "invalid_field", "command");
        }
    }
}
