package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReceiver.Reply;
import dev.arbor.testing.TestServer;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Tools fetched with the MCP Java SDK from the real server-everything over Streamable HTTP and SSE, what a refetch
 * reports, listing with cursors, and servers that are down, slow or speak nonsense (the previous tools stay).
 */
class ToolFetchTest {
    @Test
    void toolsAreFetchedOverBothTransportsAndAFailingServerKeepsThePreviousList() throws Exception {
        EverythingServer streamable = EverythingServer.start("streamableHttp");
        try (var sse = EverythingServer.start("sse");
                var receiver = new HttpReceiver();
                var server = ArborServer.start(
                        Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1", "ARBOR_MCP_TIMEOUT_SECONDS", "4"))) {
            TestServer http = server.http();
            String gateway = custom(http, "Everything", streamable.url("/mcp"));
            JsonNode fetched =
                    http.action("/connectors/" + gateway + "/fetch-tools").json();
            assertThat(fetched.path("added").size()).isGreaterThanOrEqualTo(10);
            assertThat(fetched.path("added").toString()).contains("\"echo\"", "\"get-sum\"");
            int total = fetched.path("total").asInt();
            JsonNode again =
                    http.action("/connectors/" + gateway + "/fetch-tools").json();
            assertThat(again.path("added")).isEmpty();
            assertThat(again.path("unchanged").asInt()).isEqualTo(total);

            JsonNode page =
                    http.get("/connectors/" + gateway + "/tools?limit=5").json();
            assertThat(page.path("data")).hasSize(5);
            assertThat(page.path("has_more").asBoolean()).isTrue();
            JsonNode all =
                    http.get("/connectors/" + gateway + "/tools?limit=100").json();
            JsonNode echo = null;
            for (JsonNode tool : all.path("data")) {
                if (tool.path("name").asText().equals("echo")) {
                    echo = tool;
                }
            }
            assertThat(echo).isNotNull();
            assertThat(echo.at("/input_schema/properties/message/type").asText())
                    .isEqualTo("string");

            String overSse = custom(http, "Everything over SSE", sse.url("/sse"));
            assertThat(http.get("/connectors/configured?limit=100").json().toString())
                    .contains("\"sse\"");
            assertThat(http.action("/connectors/" + overSse + "/fetch-tools")
                            .json()
                            .path("total")
                            .asInt())
                    .isEqualTo(total);

            // the same gateway, its server gone: 502, and the tools fetched before are still there
            streamable.close();
            http.action("/connectors/" + gateway + "/fetch-tools")
                    .assertError(502, "upstream_unavailable", "gateway_id");
            assertThat(http.get("/connectors/" + gateway + "/tools?limit=100")
                            .json()
                            .path("data")
                            .size())
                    .isEqualTo(total);

            receiver.script("/garbage", Reply.json(200, "this is not JSON-RPC"));
            String garbage = custom(http, "Garbage", receiver.url("/garbage"));
            http.action("/connectors/" + garbage + "/fetch-tools")
                    .assertError(502, "upstream_unavailable", "gateway_id");
            receiver.script("/slow", Reply.slow(10_000));
            String slow = custom(http, "Slow", receiver.url("/slow"));
            http.action("/connectors/" + slow + "/fetch-tools").assertError(504, "upstream_timeout", "gateway_id");

            http.patch("/connectors/configured/" + overSse + "/toggle", "{\"enabled\": false}");
            http.action("/connectors/" + overSse + "/fetch-tools").assertError(409, "gateway_disabled", "gateway_id");
            http.get("/connectors/" + overSse + "/tools").assertError(409, "gateway_disabled", "gateway_id");
            http.action("/connectors/gw_nope/fetch-tools").assertError(404, "gateway_not_found", "gateway_id");
            http.get("/connectors/gw_nope/tools").assertError(404, "gateway_not_found", "gateway_id");

            JsonNode deleted = http.delete("/connectors/gateways/" + gateway).json();
            assertThat(deleted.path("tools_removed").asInt()).isEqualTo(total);
        } finally {
            streamable.close(); // closed twice at most: closing a stopped server does nothing
        }
    }

    private static String custom(TestServer http, String name, String url) {
        JsonNode created = http.post(
                        "/connectors/custom",
                        "{\"name\": \"" + name + "\", \"url\": \"" + url
                                + "\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}")
                .json();
        assertThat(created.has("id")).as(created.toString()).isTrue();
        return created.path("id").asText();
    }
}
