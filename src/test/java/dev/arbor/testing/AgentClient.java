package dev.arbor.testing;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import java.time.Duration;

/** What an agent's caller uses: the MCP Java SDK's client on a prompt's agent endpoint, with a bearer token. */
public final class AgentClient {
    private AgentClient() {}

    public static McpSyncClient connect(TestServer http, String promptId, String token) {
        var transport = HttpClientStreamableHttpTransport.builder("http://127.0.0.1:" + http.port())
                .endpoint("/mcp/prompts/" + promptId)
                .addHttpRequestCustomizer(
                        (request, method, uri, body, context) -> request.header("Authorization", "Bearer " + token))
                .build();
        return McpClient.sync(transport).requestTimeout(Duration.ofSeconds(20)).build();
    }
}
