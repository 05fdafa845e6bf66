package dev.arbor.connectors.agents;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.gateways.AuthType;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateway.Scope;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.gateways.Transport;
import dev.arbor.connectors.oauth.GatewayOAuth;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.AllowedDestination;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.testing.EverythingServer;
import dev.arbor.testing.HttpReceiver;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calls to a gateway's MCP server resolve its name once, through the outbound policy, and connect to the address the
 * policy checked: over Streamable HTTP (the SDK's transport and the kept-session calls) and SSE alike. A name only
 * the policy's resolver knows is reached, which a second lookup by the system would not find; a name whose answer
 * turns internal after the gateway was saved (DNS rebinding) is refused before any request is sent.
 */
class McpUpstreamPinningTest {
    private static final Identity CALLER = new Identity(Identity.Kind.API_TOKEN, "tok_pinning");

    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    @TempDir
    Path folder;

    private Database database;

    @BeforeEach
    void open() {
        database = Database.openSqlite(folder.resolve("arbor.db"));
    }

    @AfterEach
    void close() {
        database.close();
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"STREAMABLE_HTTP", "SSE"})
    void aNameOnlyThePolicyResolvesIsCalledAtTheAddressItChecked(Transport transport) throws Exception {
        var lookups = new AtomicInteger();
        try (var server = EverythingServer.start(transport == Transport.SSE ? "sse" : "streamableHttp")) {
            var policy = new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1:" + server.port())), host -> {
                lookups.incrementAndGet();
                return new InetAddress[] {InetAddress.getByName("127.0.0.1")};
            });
            String path = transport == Transport.SSE ? "/sse" : "/mcp";
            Gateway gateway = gateway("http://everything.invalid:" + server.port() + path, transport);
            try (var outbound = new OutboundClient(policy)) {
                McpUpstream upstream = upstream(policy, outbound);
                try {
                    assertThat(upstream.tools(gateway, CALLER))
                            .extracting(tool -> tool.name())
                            .contains("echo");
                    JsonNode echoed =
                            upstream.call(gateway, CALLER, "echo", Json.object().put("message", "pinned"));
                    assertThat(echoed.toString()).contains("pinned");
                } finally {
                    upstream.close();
                }
            }
            assertThat(lookups).as("every connection resolved by the policy").hasPositiveValue();
        }
    }

    @ParameterizedTest
    @EnumSource(
            value = Transport.class,
            names = {"STREAMABLE_HTTP", "SSE"})
    void aNameThatRebindsToAnInternalAddressAfterTheGatewayWasSavedIsRefusedBeforeAnyRequest(Transport transport)
            throws Exception {
        try (var receiver = new HttpReceiver()) {
            // public when the gateway was saved, then the receiver's loopback address at every later lookup
            var answers = new ArrayDeque<>(List.of("93.184.216.34"));
            var policy = new OutboundPolicy(List.of(), host ->
                    new InetAddress[] {InetAddress.getByName(answers.isEmpty() ? "127.0.0.1" : answers.removeFirst())});
            String url = receiver.url("/mcp").replace("127.0.0.1", "rebind.invalid");
            policy.check(URI.create(url));
            Gateway gateway = gateway(url, transport);
            try (var outbound = new OutboundClient(policy)) {
                McpUpstream upstream = upstream(policy, outbound);
                try {
                    // the SDK's SSE transport reports no failure to connect, only the answer that never comes
                    String refusal = transport == Transport.SSE ? "did not answer" : "cannot be called";
                    assertThatThrownBy(() -> upstream.tools(gateway, CALLER))
                            .isInstanceOf(ApiException.class)
                            .hasMessageContaining(refusal);
                    assertThatThrownBy(() -> upstream.call(gateway, CALLER, "echo", Json.object()))
                            .isInstanceOf(ApiException.class)
                            .hasMessageContaining(refusal);
                } finally {
                    upstream.close();
                }
            }
            assertThat(receiver.received("/mcp"))
                    .as("nothing reached the internal address")
                    .isEmpty();
        }
    }

    private McpUpstream upstream(OutboundPolicy policy, OutboundClient outbound) {
        var oauth = new GatewayOAuth(database, new SecretBox(new byte[32]), outbound, TIMEOUT, Clock.systemUTC());
        return new McpUpstream(policy, outbound, oauth, List.of(), TIMEOUT);
    }

    private static Gateway gateway(String url, Transport transport) {
        return new Gateway(
                "gw_pinned",
                "pinned",
                Optional.empty(),
                url,
                transport,
                AuthType.NONE,
                "",
                Json.object(),
                Optional.empty(),
                new Scope(true, true, List.of()),
                List.of(),
                1L,
                1L);
    }
}
