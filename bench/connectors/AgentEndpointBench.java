package connectors;

import static common.JsonCalls.send;

import common.InProcessServer;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * What the agent endpoint adds to a tool call: the real server-everything (from src/test/mcp, installed by the
 * tests' npm ci) called directly by the MCP Java SDK's client, and the same tool called through
 * /mcp/prompts/{id} of an in-process Arbor, alternating in the same run, one caller. Run with the Arbor jar and the
 * SDK (both in the test class path): java -cp "$(cat cp.txt)" bench/connectors/AgentEndpointBench.java [calls]
 */
public class AgentEndpointBench {

    public static void main(String[] args) throws Exception {
        int calls = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        int port;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Path fixture = Path.of("src/test/mcp").toAbsolutePath();
        var node = new ProcessBuilder(
                        "node",
                        "--require",
                        fixture.resolve("loopback.cjs").toString(),
                        fixture.resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
                                .toString(),
                        "streamableHttp")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true);
        node.environment().put("PORT", Integer.toString(port));
        Process everything = node.start();
        try (var server = InProcessServer.start("agent", null, Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"))) {
            waitFor(port);
            String base = server.base();
            String project = send("POST", base + "/projects", "{\"name\": \"bench\"}")
                    .path("id")
                    .asText();
            String gateway = send(
                            "POST",
                            base + "/connectors/custom",
                            "{\"name\": \"Everything\", \"url\": " + "\"http://127.0.0.1:" + port
                                    + "/mcp\", \"auth_type\": \"none\", \"scope\": {\"global\": true}}")
                    .path("id")
                    .asText();
            send("POST", base + "/connectors/" + gateway + "/fetch-tools", null);
            var ids = new HashMap<String, String>();
            send("GET", base + "/connectors/" + gateway + "/tools?limit=100", null)
                    .path("data")
                    .forEach(t -> ids.put(t.path("name").asText(), t.path("id").asText()));
            send(
                    "POST",
                    base + "/prompts/bench/connections/" + gateway + "/attach-tools",
                    "{\"project_id\": \"" + project + "\", \"tool_ids\": [\"" + ids.get("echo") + "\"]}");
            try (McpSyncClient direct = client("http://127.0.0.1:" + port, "/mcp");
                    McpSyncClient agent = client(base, "/mcp/prompts/bench")) {
                direct.initialize();
                agent.initialize();
                double[] directMillis = new double[calls];
                double[] agentMillis = new double[calls];
                double[] pingMillis = new double[calls];
                for (int i = 0; i < calls / 10; i++) { // warm-up
                    time(direct, "echo");
                    time(agent, "everything__echo");
                    ping(agent);
                }
                for (int i = 0; i < calls; i++) {
                    directMillis[i] = time(direct, "echo");
                    agentMillis[i] = time(agent, "everything__echo");
                    pingMillis[i] = ping(agent);
                }
                Arrays.sort(directMillis);
                Arrays.sort(agentMillis);
                Arrays.sort(pingMillis);
                System.out.printf(
                        "ping of the agent endpoint (no tool call): p50 %.2f ms p99 %.2f ms%n",
                        p(pingMillis, 0.5), p(pingMillis, 0.99));
                System.out.printf(
                        "%d calls each, alternating: direct p50 %.2f ms p99 %.2f ms | through the agent "
                                + "endpoint p50 %.2f ms p99 %.2f ms | added p50 %.2f ms p99 %.2f ms%n",
                        calls,
                        p(directMillis, 0.5),
                        p(directMillis, 0.99),
                        p(agentMillis, 0.5),
                        p(agentMillis, 0.99),
                        p(agentMillis, 0.5) - p(directMillis, 0.5),
                        p(agentMillis, 0.99) - p(directMillis, 0.99));
            }
        } finally {
            everything.destroy();
        }
    }

    static double time(McpSyncClient client, String tool) {
        long start = System.nanoTime();
        client.callTool(McpSchema.CallToolRequest.builder(tool)
                .arguments(Map.of("message", "hi"))
                .build());
        return (System.nanoTime() - start) / 1e6;
    }

    static double ping(McpSyncClient client) {
        long start = System.nanoTime();
        client.ping();
        return (System.nanoTime() - start) / 1e6;
    }

    static double p(double[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }

    static McpSyncClient client(String base, String endpoint) {
        return McpClient.sync(HttpClientStreamableHttpTransport.builder(base)
                        .endpoint(endpoint)
                        .build())
                .requestTimeout(Duration.ofSeconds(30))
                .build();
    }

    static void waitFor(int port) throws InterruptedException {
        for (int i = 0; i < 300; i++) {
            try (var socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (java.io.IOException e) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("server-everything did not start");
    }
}
