package dev.arbor.connectors.gateways;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.JsonMutator;
import dev.arbor.testing.TestServer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A seeded fuzzer over the connectors' bodies: valid gateways (remote with headers, OAuth, stdio, from the
 * registry), updates, attachments, registry entries, the start and the end of an authorization, each mutated at
 * random. Every answer is a clear 2xx or 4xx (an authorization's start may also find its server unreachable: 502),
 * never a 500, and exactly the gateways answered 201 exist afterwards. The seed is printed so that a failure can be
 * replayed.
 */
class ConnectorFuzzTest {
    private static final long SEED = Long.getLong("fuzz.seed", System.nanoTime());
    private static final int CASES = Integer.getInteger("fuzz.cases", 300);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> STRINGS = List.of(
            "",
            " ",
            "none",
            "headers",
            "oauth",
            "stdio",
            "sse",
            "streamable_http",
            "node",
            "bash",
            "http://127.0.0.1:9/mcp",
            "https://evil.example/cb",
            "http://localhost:5173/cb",
            "javascript:alert(1)",
            "Authorization",
            "bad header",
            "1BAD",
            "é\u0000\uFFFF",
            "a".repeat(5000),
            "studio",
            "prompt",
            "proj_nope",
            "tool_nope",
            "github",
            "openid");
    private static final Set<Integer> CLEAR = Set.of(200, 201, 400, 404, 409);

    private record Case(String method, String path, String body, boolean createsGateway, boolean reachesOut) {}

    @Test
    void anyMutationOfAConnectorBodyGetsAClearAnswerAndWritesWholeGatewaysOnly() throws Exception {
        System.out.println("ConnectorFuzzTest seed: " + SEED + " (replay with -Dfuzz.seed=" + SEED + ")");
        var random = new Random(SEED);
        var mutator = new JsonMutator(random, STRINGS);
        try (var server = ArborServer.start(Map.of(
                "ARBOR_OUTBOUND_ALLOW",
                "127.0.0.1",
                "ARBOR_MCP_STDIO_COMMANDS",
                "node",
                "ARBOR_MCP_TIMEOUT_SECONDS",
                "2"))) {
            TestServer http = server.http();
            String project = http.post("/projects", "{\"name\": \"red\"}")
                    .json()
                    .path("id")
                    .asText();
            String headers = http.post(
                            "/connectors/custom",
                            "{\"name\": \"H\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"auth_type\": \"headers\", \"credentials\": {\"auth_headers\": [{\"key\": \"A\", \"value\": "
                                    + "\"b\"}]}, \"scope\": {\"global\": true}}")
                    .json()
                    .path("id")
                    .asText();
            String oauth = http.post(
                            "/connectors/custom",
                            "{\"name\": \"O\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"auth_type\": \"oauth\", \"credentials\": {\"client_id\": \"c\", \"authorization_url\": "
                                    + "\"http://127.0.0.1:9/authorize\", \"token_url\": \"http://127.0.0.1:9/token\"}, \"scope\": "
                                    + "{\"global\": true}}")
                    .json()
                    .path("id")
                    .asText();
            int created = 2;
            List<Case> valid = List.of(
                    new Case(
                            "POST",
                            "/connectors/custom",
                            "{\"name\": \"Fuzz\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"transport\": \"streamable_http\", \"auth_type\": \"headers\", \"description\": \"d\", "
                                    + "\"credentials\": {\"auth_headers\": [{\"key\": \"Authorization\", \"value\": \"Bearer "
                                    + "x\"}], \"passthrough_headers\": [\"X-Trace\"]}, \"scope\": {\"enabled\": true, "
                                    + "\"global\": false, \"projects\": [\"" + project
                                    + "\"]}, \"clients\": [\"studio\"]}",
                            true,
                            false),
                    new Case(
                            "POST",
                            "/connectors/custom",
                            "{\"name\": \"O\", \"url\": \"http://127.0.0.1:9/mcp\", "
                                    + "\"auth_type\": \"oauth\", \"credentials\": {\"client_id\": \"c\", \"client_secret\": "
                                    + "\"s\", \"scopes\": [\"openid\"], \"authorization_url\": \"http://127.0.0.1:9/a\", "
                                    + "\"token_url\": \"http://127.0.0.1:9/t\"}, \"scope\": {\"global\": true}}",
                            true,
                            false),
                    new Case(
                            "POST",
                            "/connectors/custom",
                            "{\"name\": \"L\", \"transport\": \"stdio\", \"command\": "
                                    + "\"node\", \"args\": [\"x.js\"], \"credentials\": {\"env\": [{\"key\": \"A\", "
                                    + "\"value\": \"b\"}]}, \"scope\": {\"global\": true}}",
                            true,
                            false),
                    new Case(
                            "POST",
                            "/connectors/gateways",
                            "{\"connector_id\": \"github\", \"name\": \"G\", "
                                    + "\"credentials\": {\"client_id\": \"abc\", \"client_secret\": \"s\"}, \"scope\": "
                                    + "{\"global\": true}}",
                            true,
                            false),
                    new Case(
                            "PATCH",
                            "/connectors/configured/" + headers,
                            "{\"scope\": {\"enabled\": true, "
                                    + "\"global\": false, \"projects\": [\"" + project
                                    + "\"]}, \"clients\": [\"prompt\"], "
                                    + "\"credentials\": {\"auth_headers\": [{\"key\": \"X\", \"value\": \"y\"}]}}",
                            false,
                            false),
                    new Case(
                            "POST",
                            "/prompts/agent-f/connections/" + headers + "/attach-tools",
                            "{\"project_id\": \"" + project + "\", \"tool_ids\": [\"tool_x\"]}",
                            false,
                            false),
                    new Case(
                            "POST",
                            "/connectors/registry",
                            "{\"id\": \"fuzz-x\", \"name\": \"X\", \"url\": "
                                    + "\"https://example.com/mcp\", \"transport\": \"streamable_http\", \"auth_type\": "
                                    + "\"oauth\", \"oauth_scopes\": [\"a\"], \"oauth_supports_dcr\": true}",
                            false,
                            false),
                    new Case(
                            "POST",
                            "/connectors/" + oauth + "/oauth/initiate",
                            "{\"return_url\": " + "\"http://localhost:5173/cb\"}",
                            false,
                            true),
                    new Case(
                            "POST",
                            "/connectors/oauth/callback",
                            "{\"code\": \"c\", \"state\": \"s\", \"iss\": " + "\"http://127.0.0.1:9\"}",
                            false,
                            false));
            for (int i = 0; i < CASES; i++) {
                Case picked = valid.get(random.nextInt(valid.size()));
                JsonNode body = JSON.readTree(picked.body());
                for (int m = 1 + random.nextInt(3); m > 0; m--) {
                    mutator.mutate(body);
                }
                HttpReply reply = http.send(picked.method(), picked.path(), body.toString());
                Set<Integer> allowed = picked.reachesOut() ? Set.of(200, 400, 404, 409, 502, 504) : CLEAR;
                assertThat(reply.status())
                        .as("%s %s %s -> %s", picked.method(), picked.path(), body, reply.body())
                        .isIn(allowed);
                if (picked.createsGateway() && reply.status() == 201) {
                    created++;
                }
            }
            assertThat(configured(http)).isEqualTo(created);
        }
    }

    private static int configured(TestServer http) {
        int count = 0;
        String after = "";
        while (true) {
            JsonNode page = http.get("/connectors/configured?include_disabled=true&limit=100" + after)
                    .json();
            count += page.path("data").size();
            if (!page.path("has_more").asBoolean()) {
                return count;
            }
            after = "&after=" + page.path("last_id").asText();
        }
    }
}
