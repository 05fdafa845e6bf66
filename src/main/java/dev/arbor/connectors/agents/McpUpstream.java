package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.connectors.gateways.AuthType;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.gateways.Transport;
import dev.arbor.connectors.oauth.GatewayOAuth;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import dev.arbor.platform.tracing.Propagation;
import dev.arbor.platform.tracing.Traced;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.client.transport.McpHttpClientTransportAuthorizationException;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.client.transport.customizer.McpSyncHttpClientRequestCustomizer;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.jackson2.JacksonMcpJsonMapper;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.opentelemetry.api.trace.SpanKind;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Talks to a gateway's MCP server with the MCP Java SDK, over Streamable HTTP or SSE, with the gateway's credentials
 * as headers, or its OAuth access token (refreshed before it expires, and once more when the server refuses it). Every
 * request goes through the {@link OutboundClient}, so the server's name is resolved once, by the outbound policy, and
 * only an address it checked is connected to. A server the policy refuses, that cannot be reached or answers nonsense
 * is 502 {@code upstream_unavailable}; one too slow is 504 {@code upstream_timeout}.
 */
final class McpUpstream {
    private static final Logger LOG = LoggerFactory.getLogger(McpUpstream.class);
    private static final int MAX_PAGES = 100;
    /** Where the transport context carries the calling thread's trace headers. */
    private static final String TRACE = "arbor.trace_headers";

    /** What a stdio server inherits of this process's environment: nothing secret, only what finding things needs. */
    private static final List<String> INHERITED =
            List.of("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LC_ALL", "TMPDIR", "TZ");

    private final OutboundPolicy policy;
    private final OutboundClient outbound;
    private final GatewayOAuth oauth;
    private final List<String> stdioCommands;
    private final Duration timeout;
    private final Map<String, McpSyncClient> clients = new ConcurrentHashMap<>();
    private final StreamableCalls streamable;
    private final JacksonMcpJsonMapper mapper = new JacksonMcpJsonMapper(Json.mapper());

    McpUpstream(
            OutboundPolicy policy,
            OutboundClient outbound,
            GatewayOAuth oauth,
            List<String> stdioCommands,
            Duration timeout) {
        this.policy = requireNonNull(policy, "policy");
        this.outbound = requireNonNull(outbound, "outbound");
        this.oauth = requireNonNull(oauth, "oauth");
        this.stdioCommands = List.copyOf(stdioCommands);
        this.timeout = requireNonNull(timeout, "timeout");
        this.streamable = new StreamableCalls(outbound, timeout);
    }

    /** Every tool the server lists, through all its pages. */
    List<McpSchema.Tool> tools(Gateway gateway, Identity identity) {
        try {
            return listTools(gateway, identity);
        } catch (ApiException e) {
            throw e;
        } catch (RuntimeException e) {
            if (refreshedAfterRefusal(gateway, identity, e)) {
                return listTools(gateway, identity);
            }
            throw failure(gateway, e);
        }
    }

    private List<McpSchema.Tool> listTools(Gateway gateway, Identity identity) {
        try (McpSyncClient client = connect(gateway, identity)) {
            var tools = new ArrayList<McpSchema.Tool>();
            String cursor = null;
            for (int page = 0; page < MAX_PAGES; page++) {
                McpSchema.ListToolsResult result = cursor == null ? client.listTools() : client.listTools(cursor);
                tools.addAll(result.tools());
                cursor = result.nextCursor();
                if (cursor == null || cursor.isEmpty()) {
                    break;
                }
            }
            return tools;
        }
    }

    /**
     * Calls one tool of the gateway's server with the arguments an agent gave; the server's result as it is (an
     * error the server answered with is 502 {@code upstream_unavailable} with its message). Streamable HTTP servers
     * are called on a kept session ({@link StreamableCalls}); SSE and stdio servers share one initialized SDK client
     * per gateway (as the gateway is now). A call that fails is tried once more on a new session or client, as a
     * server may have forgotten its session, and after a refused token on a new one. On a per-user gateway the call
     * carries {@code identity}'s own token, on a session of that identity's own.
     */
    JsonNode call(Gateway gateway, Identity identity, String tool, JsonNode arguments) {
        try (Traced span = Traced.child("tools/call " + tool, SpanKind.CLIENT)
                .with("mcp.method.name", "tools/call")
                .with("gen_ai.tool.name", tool)
                .with("arbor.gateway.id", gateway.id())
                .with("network.transport", gateway.transport().name().toLowerCase(java.util.Locale.ROOT))) {
            try {
                return callTraced(gateway, identity, tool, arguments);
            } catch (ApiException e) {
                span.failed(e.code().code(), e.problems().getFirst().message());
                throw e;
            }
        }
    }

    private JsonNode callTraced(Gateway gateway, Identity identity, String tool, JsonNode arguments) {
        if (gateway.transport() == Transport.STREAMABLE_HTTP) {
            return callStreamable(gateway, identity, tool, arguments);
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> map = Json.mapper().convertValue(arguments, Map.class);
        var request = McpSchema.CallToolRequest.builder(tool).arguments(map).build();
        String key = sessionKey(gateway, identity);
        McpSyncClient client = client(key, gateway, identity);
        try {
            return json(client.callTool(request));
        } catch (RuntimeException first) {
            drop(key, client);
            if (timedOut(first)) {
                throw failure(gateway, first);
            }
            refreshedAfterRefusal(gateway, identity, first);
            McpSyncClient again = client(key, gateway, identity);
            try {
                return json(again.callTool(request));
            } catch (RuntimeException e) {
                drop(key, again);
                throw failure(gateway, e);
            }
        }
    }

    private JsonNode callStreamable(Gateway gateway, Identity identity, String tool, JsonNode arguments) {
        String key = sessionKey(gateway, identity);
        for (int attempt = 0; ; attempt++) {
            StreamableCalls.Answer answer;
            try {
                answer = streamable.call(gateway, key, headers(gateway, identity), tool, arguments);
            } catch (StreamableCalls.Unauthorized e) {
                if (attempt > 0 || gateway.authType() != AuthType.OAUTH) {
                    throw failure(gateway, e);
                }
                oauth.rejected(gateway, identity, oauth.accessToken(gateway, identity));
                continue;
            } catch (IOException | RuntimeException e) {
                streamable.forgetSession(key);
                if (attempt > 0 || timedOut(e) || e instanceof ApiException || e instanceof OutboundRefusedException) {
                    throw e instanceof ApiException api ? api : failure(gateway, e);
                }
                continue;
            }
            if (answer.error().isPresent()) {
                throw ApiException.of(
                        ErrorCode.UPSTREAM_UNAVAILABLE,
                        "gateway_id",
                        "The MCP server at "
                                + host(gateway) + " refused the call: "
                                + answer.error()
                                        .get()
                                        .path("message")
                                        .asText(answer.error().get().toString()));
            }
            return answer.result().orElseThrow();
        }
    }

    /**
     * What a gateway's kept sessions and clients are kept under: the gateway as it is now and the identity, so that a
     * server keeping state per session (a counter, a toggle) keeps each caller's apart, as each caller's own client
     * would, and a per-user gateway's session is opened with the identity's own token. A stdio server is one process
     * per gateway, shared.
     */
    private static String sessionKey(Gateway gateway, Identity identity) {
        String current = gateway.id() + "@" + gateway.updatedAt();
        return gateway.transport() == Transport.STDIO ? current : current + "/" + identity.id();
    }

    /** The headers a gateway's requests carry: its auth headers, or an OAuth gateway's current token. */
    private Map<String, String> headers(Gateway gateway, Identity identity) {
        var headers = new java.util.LinkedHashMap<String, String>();
        gateway.secret()
                .ifPresent(secret -> secret.path("auth_headers")
                        .forEach(header -> headers.put(
                                header.path("key").asText(),
                                header.path("value").asText())));
        if (gateway.authType() == AuthType.OAUTH) {
            headers.put("Authorization", "Bearer " + oauth.accessToken(gateway, identity));
        }
        return headers;
    }

    private JsonNode json(McpSchema.CallToolResult result) {
        try {
            return Json.read(mapper.writeValueAsString(result));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private McpSyncClient client(String key, Gateway gateway, Identity identity) {
        McpSyncClient client = clients.computeIfAbsent(key, k -> connect(gateway, identity));
        // a client of the gateway as it was before a change goes
        String current = gateway.id() + "@" + gateway.updatedAt();
        clients.entrySet()
                .removeIf(entry -> entry.getKey().startsWith(gateway.id() + "@")
                        && !entry.getKey().equals(current)
                        && !entry.getKey().startsWith(current + "/")
                        && close(entry.getValue()));
        return client;
    }

    /** Closes the clients kept for a gateway that is gone or disabled (a stdio server's process ends with it). */
    void forget(String gatewayId) {
        closeClients(gatewayId, "");
        streamable.forget(gatewayId);
    }

    private void closeClients(String gatewayId, String except) {
        clients.entrySet()
                .removeIf(entry -> entry.getKey().startsWith(gatewayId + "@")
                        && !entry.getKey().equals(except)
                        && close(entry.getValue()));
    }

    private void drop(String key, McpSyncClient client) {
        if (clients.remove(key, client)) {
            close(client);
        }
    }

    private static boolean close(McpSyncClient client) {
        try {
            client.close();
        } catch (RuntimeException e) {
            // it was failing anyway
        }
        return true;
    }

    /** Closes the clients kept for calls. */
    void close() {
        streamable.close();
        clients.values().forEach(McpUpstream::close);
        clients.clear();
    }

    /**
     * When the server refused an OAuth gateway's token, a new token (refreshed, or made by another refresh in the
     * meantime); true when there is one to try again with.
     */
    private boolean refreshedAfterRefusal(Gateway gateway, Identity identity, RuntimeException failure) {
        if (gateway.authType() != AuthType.OAUTH || !refused(failure)) {
            return false;
        }
        oauth.rejected(gateway, identity, oauth.accessToken(gateway, identity));
        return true;
    }

    private static boolean refused(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof McpHttpClientTransportAuthorizationException
                    || (cause.getMessage() != null && cause.getMessage().matches("(?s).*\\b401\\b.*"))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A client initialized with the gateway's server, connected to an address the outbound policy checked, and an
     * OAuth gateway's token at hand (or 409 {@code oauth_required}).
     */
    private McpSyncClient connect(Gateway gateway, Identity identity) {
        if (gateway.authType() == AuthType.OAUTH) {
            oauth.accessToken(gateway, identity);
        }
        McpSyncClient client = McpClient.sync(transport(gateway, identity))
                // read on the calling thread at each request, carried by the SDK to the thread that sends it
                .transportContextProvider(() -> McpTransportContext.create(Map.of(TRACE, Propagation.headers())))
                .requestTimeout(timeout)
                .initializationTimeout(timeout)
                .clientInfo(McpSchema.Implementation.builder("arbor", "1").build())
                .build();
        try {
            client.initialize();
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw failure(gateway, e);
        }
    }

    // the SDK deprecates its SSE transport, as the MCP spec did in 2025; servers that speak only SSE remain common
    @SuppressWarnings("deprecation")
    private McpClientTransport transport(Gateway gateway, Identity identity) {
        var mapper = new JacksonMcpJsonMapper(Json.mapper());
        if (gateway.transport() == Transport.STDIO) {
            return local(gateway, mapper);
        }
        URI uri = URI.create(gateway.url());
        try {
            policy.requireCallable(uri); // the address is checked as the connection is made
        } catch (OutboundRefusedException e) {
            throw refused(e);
        }
        McpSyncHttpClientRequestCustomizer headers = (request, method, endpoint, body, context) -> {
            headers(gateway, identity).forEach(request::header);
            // the caller's trace, captured on its thread: this runs on one of the SDK's
            if (context.get(TRACE) instanceof Map<?, ?> trace) {
                trace.forEach((name, value) -> request.header(String.valueOf(name), String.valueOf(value)));
            }
        };
        String base = uri.getScheme() + "://" + uri.getRawAuthority();
        String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        if (uri.getRawQuery() != null) {
            path += "?" + uri.getRawQuery();
        }
        if (gateway.transport() == Transport.SSE) {
            return HttpClientSseClientTransport.builder(base)
                    .sseEndpoint(path)
                    .jsonMapper(mapper)
                    .clientBuilder(outbound.jdkClientBuilder())
                    .addHttpRequestCustomizer(headers)
                    .build();
        }
        return HttpClientStreamableHttpTransport.builder(base)
                .endpoint(path)
                .jsonMapper(mapper)
                .clientBuilder(outbound.jdkClientBuilder())
                .addHttpRequestCustomizer(headers)
                .build();
    }

    /**
     * A stdio server: the command (still one {@code ARBOR_MCP_STDIO_COMMANDS} allows) run with its arguments and its
     * sealed environment, and of this process's environment only {@link #INHERITED}, so that no secret of this
     * server reaches it.
     */
    private McpClientTransport local(Gateway gateway, JacksonMcpJsonMapper mapper) {
        String command = gateway.settings().path("command").asText();
        if (!stdioCommands.contains(command)) {
            throw ApiException.of(
                    ErrorCode.UPSTREAM_UNAVAILABLE,
                    "gateway_id",
                    "The command '" + command + "' is no " + "longer one ARBOR_MCP_STDIO_COMMANDS allows.");
        }
        var args = new ArrayList<String>();
        gateway.settings().path("args").forEach(arg -> args.add(arg.asText()));
        var env = new java.util.HashMap<String, String>();
        gateway.secret()
                .ifPresent(secret -> secret.path("env")
                        .forEach(pair -> env.put(
                                pair.path("key").asText(), pair.path("value").asText())));
        var parameters = ServerParameters.builder(command).args(args).env(env).build();
        var transport = new StdioClientTransport(parameters, mapper) {
            @Override
            protected ProcessBuilder getProcessBuilder() {
                var builder = new ProcessBuilder();
                builder.environment().clear();
                INHERITED.forEach(name -> {
                    String value = System.getenv(name);
                    if (value != null) {
                        builder.environment().put(name, value);
                    }
                });
                return builder;
            }
        };
        transport.setStdErrorHandler(line -> LOG.debug("stdio server of gateway {}: {}", gateway.id(), line));
        return transport;
    }

    private static boolean timedOut(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException || cause instanceof java.net.http.HttpTimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static ApiException refused(OutboundRefusedException e) {
        return ApiException.of(
                ErrorCode.UPSTREAM_UNAVAILABLE,
                "gateway_id",
                "The gateway's server cannot be called: " + e.getMessage());
    }

    private ApiException failure(Gateway gateway, Exception e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof OutboundRefusedException refusal) {
                return refused(refusal);
            }
        }
        if (timedOut(e)) {
            return ApiException.of(
                    ErrorCode.UPSTREAM_TIMEOUT,
                    "gateway_id",
                    "The MCP server at " + host(gateway) + " did not answer within " + timeout.toSeconds() + " s.");
        }
        Throwable root = e;
        while (root.getCause() != null) {
            root = root.getCause();
        }
        return ApiException.of(
                ErrorCode.UPSTREAM_UNAVAILABLE,
                "gateway_id",
                "The MCP server at " + host(gateway)
                        + " could not be used: " + root.getClass().getSimpleName()
                        + (root.getMessage() == null ? "" : ": " + root.getMessage()));
    }

    private static String host(Gateway gateway) {
        if (gateway.transport() == Transport.STDIO) {
            return "'" + gateway.settings().path("command").asText() + "' (stdio)";
        }
        URI uri = URI.create(gateway.url());
        return uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "");
    }
}
