package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.ConnectorChanges;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.oauth.UserAuthorization;
import dev.arbor.connectors.search.MetaTools;
import dev.arbor.connectors.search.ToolMode;
import dev.arbor.connectors.search.ToolSearch;
import dev.arbor.connectors.sessions.AgentSessions;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.tracing.Traced;
import io.javalin.http.Context;
import io.opentelemetry.api.trace.SpanKind;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * An MCP server per agent, {@code /mcp/prompts/{prompt_id}} (Streamable HTTP, answered as JSON): it lists exactly the
 * tools attached to the agent from enabled gateways, named {@code <gateway>__<tool>} so that two gateways' tools
 * never clash, and forwards each call to the right server with that gateway's credentials. A token may use it when
 * it may act in the agent's project. An agent framework connects to one URL and gets its tools.
 */
final class AgentEndpoint {
    private static final Set<String> PROTOCOLS = Set.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");
    private static final String LATEST = "2025-06-18";

    private final Gateways gateways;
    private final BindingStore bindings;
    private final McpUpstream upstream;
    private final ConnectorChanges changes;
    private final CallAudit audit;
    private final RateLimiter rateLimits;
    private final UserAuthorization userAuthorization;
    private final AgentSessions sessions;
    private final ToolSearch search;
    private final Map<String, Served> served = new ConcurrentHashMap<>();
    private volatile long servedVersion = -1;

    AgentEndpoint(
            Gateways gateways,
            BindingStore bindings,
            McpUpstream upstream,
            ConnectorChanges changes,
            CallAudit audit,
            RateLimiter rateLimits,
            UserAuthorization userAuthorization,
            AgentSessions sessions,
            ToolSearch search) {
        this.gateways = requireNonNull(gateways, "gateways");
        this.bindings = requireNonNull(bindings, "bindings");
        this.upstream = requireNonNull(upstream, "upstream");
        this.changes = requireNonNull(changes, "changes");
        this.audit = requireNonNull(audit, "audit");
        this.rateLimits = requireNonNull(rateLimits, "rateLimits");
        this.userAuthorization = requireNonNull(userAuthorization, "userAuthorization");
        this.sessions = requireNonNull(sessions, "sessions");
        this.search = requireNonNull(search, "search");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .post(
                        "/mcp/prompts/{prompt_id}",
                        "The agent's MCP server (Streamable HTTP): its "
                                + "attached tools, each call forwarded to its gateway",
                        this::handle)
                .body(AgentShapes.MCP_MESSAGE)
                .ok(AgentShapes.MCP_MESSAGE)
                .acceptedWithoutBody();
    }

    /** What an agent's endpoint serves, as the database had it at {@code version}. */
    private record Served(
            long version,
            Optional<String> project,
            Map<String, BindingStore.ServedTool> tools,
            Map<String, Gateway> gateways,
            ToolMode mode) {
        /** The tools the agent may call, by name: a denied tool is not offered, so the agent spends nothing on it. */
        List<Map.Entry<String, BindingStore.ServedTool>> offered() {
            return tools.entrySet().stream()
                    .filter(e -> e.getValue().policy().policy() != BindingStore.Policy.DENY)
                    .toList();
        }
    }

    /**
     * The agent's project, tools and their gateways: kept while nothing about gateways, tools or bindings changed
     * (every change moves the counter), read again otherwise.
     */
    private Served served(String prompt) {
        long version = changes.version();
        if (version != servedVersion) {
            served.clear(); // one change makes every agent's copy old
            servedVersion = version;
        }
        Served kept = served.get(prompt);
        if (kept != null && kept.version() == version) {
            return kept;
        }
        Map<String, BindingStore.ServedTool> tools = new LinkedHashMap<>(tools(prompt));
        var byId = new LinkedHashMap<String, Gateway>();
        tools.values().stream()
                .map(BindingStore.ServedTool::gatewayId)
                .distinct()
                .forEach(id -> gateways.find(id).ifPresent(gateway -> byId.put(id, gateway)));
        // a gateway deleted since its tools were read is gone with them (the next call reads everything again)
        tools.values().removeIf(tool -> !byId.containsKey(tool.gatewayId()));
        var fresh = new Served(version, bindings.projectOf(prompt), tools, byId, bindings.toolMode(prompt));
        served.put(prompt, fresh);
        return fresh;
    }

    private void handle(Context ctx) throws IOException {
        String prompt = ctx.pathParam("prompt_id");
        Served agent = served(prompt);
        AgentRoutes.requireAgentProject(ctx, prompt, agent.project());
        JsonNode message;
        try {
            message = Json.read(Requests.body(ctx));
        } catch (RuntimeException e) {
            reply(ctx, 400, error(null, -32700, "The body is not JSON."));
            return;
        }
        if (message == null || !message.isObject() || !message.path("method").isTextual()) {
            reply(ctx, 400, error(message == null ? null : message.get("id"), -32600, "Send one JSON-RPC request."));
            return;
        }
        JsonNode id = message.get("id");
        String method = message.path("method").textValue();
        Principal principal = Access.principal(ctx);
        String session = ctx.header("Mcp-Session-Id");
        // a client that kept no session may still call; one that names a session this agent and caller do not have
        // is told to initialize again
        if (session != null
                && !method.equals("initialize")
                && !sessions.live(session, prompt, Identity.of(principal).id())) {
            reply(ctx, 404, error(id, -32001, "Session not found: initialize a new one."));
            return;
        }
        if (id == null) {
            ctx.status(202); // a notification: nothing to answer
            return;
        }
        JsonNode params = message.path("params");
        Object result = switch (method) {
            case "initialize" -> {
                Map<String, Object> initialized = initialize(params, prompt);
                ctx.header(
                        "Mcp-Session-Id",
                        sessions.open(
                                prompt,
                                Identity.of(principal).id(),
                                String.valueOf(initialized.get("protocolVersion"))));
                yield initialized;
            }
            case "ping" -> Map.of();
            case "tools/list" ->
                Map.of(
                        "tools",
                        agent.mode() == ToolMode.SEARCH
                                ? MetaTools.definitions()
                                : agent.offered().stream()
                                        .map(e -> toolJson(e.getKey(), e.getValue()))
                                        .toList());
            case "tools/call" -> {
                String name = params.path("name").asText("");
                if (agent.mode() == ToolMode.SEARCH && name.equals(MetaTools.SEARCH_TOOLS)) {
                    yield searchTools(agent, arguments(params));
                }
                if (agent.mode() == ToolMode.SEARCH && name.equals(MetaTools.CALL_TOOL)) {
                    JsonNode inner = arguments(params);
                    // a wrong name here is the agent's slip within a tool: a tool error it can read and mend
                    Object answer = call(prompt, agent, inner.path("name").asText(""), arguments(inner), principal);
                    yield answer instanceof JsonRpcError refused ? toolError(refused.message()) : answer;
                }
                yield call(prompt, agent, name, arguments(params), principal);
            }
            default -> null;
        };
        if (result == null) {
            reply(ctx, 200, error(id, -32601, "There is no method '" + method + "' here."));
        } else if (result instanceof JsonRpcError rpcError) {
            Map<String, Object> response = error(id, rpcError.code(), rpcError.message());
            rpcError.data()
                    .ifPresent(data -> response.put(
                            "error", Map.of("code", rpcError.code(), "message", rpcError.message(), "data", data)));
            reply(ctx, 200, response);
        } else {
            var response = new LinkedHashMap<String, Object>();
            response.put("jsonrpc", "2.0");
            response.put("id", id);
            response.put("result", result);
            reply(ctx, 200, response);
        }
    }

    private record JsonRpcError(int code, String message, Optional<Object> data) {
        JsonRpcError(int code, String message) {
            this(code, message, Optional.empty());
        }
    }

    private static Map<String, Object> initialize(JsonNode params, String prompt) {
        String asked = params.path("protocolVersion").asText("");
        return Map.of(
                "protocolVersion",
                PROTOCOLS.contains(asked) ? asked : LATEST,
                "capabilities",
                Map.of("tools", Map.of("listChanged", false)),
                "serverInfo",
                Map.of("name", "arbor-agent-" + prompt, "version", "1"));
    }

    /** The agent's tools by the name it sees them under. */
    private Map<String, BindingStore.ServedTool> tools(String prompt) {
        List<BindingStore.ServedTool> served = bindings.served(prompt);
        var gatewayNames = new LinkedHashMap<String, String>();
        served.forEach(tool -> gatewayNames.putIfAbsent(tool.gatewayId(), tool.gatewayName()));
        Map<String, Long> gatewaysPerName = gatewayNames.values().stream()
                .collect(Collectors.groupingBy(AgentEndpoint::slug, Collectors.counting()));
        var byName = new LinkedHashMap<String, BindingStore.ServedTool>();
        for (BindingStore.ServedTool tool : served) {
            String prefix = slug(tool.gatewayName());
            if (gatewaysPerName.getOrDefault(prefix, 0L) > 1) { // two gateways of one name: their ids tell them apart
                prefix += "-"
                        + tool.gatewayId()
                                .substring(tool.gatewayId().length() - 6)
                                .toLowerCase(Locale.ROOT);
            }
            String name = prefix + "__" + tool.name();
            byName.put(name.length() > 128 ? name.substring(0, 128) : name, tool);
        }
        return byName;
    }

    /**
     * Calls the tool on its gateway's server, audited: {@code principal} is the token that asked, whose own
     * authorization a per-user gateway uses (and asks it for, with MCP's URL elicitation, when it has none).
     */
    private Object call(String prompt, Served agent, String name, JsonNode arguments, Principal principal) {
        Identity identity = Identity.of(principal);
        // OpenTelemetry's GenAI span of a tool call; the upstream call is its child, the arguments never a field
        try (Traced span = Traced.child("execute_tool " + name, SpanKind.INTERNAL)
                .with("gen_ai.operation.name", "execute_tool")
                .with("gen_ai.tool.name", name)
                .with("mcp.method.name", "tools/call")
                .with("arbor.agent", prompt)) {
            return call(prompt, agent, name, arguments, principal, identity, span);
        }
    }

    private Object call(
            String prompt,
            Served agent,
            String name,
            JsonNode arguments,
            Principal principal,
            Identity identity,
            Traced span) {
        BindingStore.ServedTool tool = agent.tools().get(name);
        if (tool == null) {
            span.failed("unknown_tool", "the agent has no such tool");
            return new JsonRpcError(-32602, "Agent " + prompt + " has no tool '" + name + "'.");
        }
        Gateway gateway = requireNonNull(agent.gateways().get(tool.gatewayId()), "a served tool's gateway");
        CallAudit.Started started =
                audit.start(agent.project().orElse(""), identity.id(), prompt, gateway.id(), name, arguments);
        Optional<Refusal> refused = refusal(prompt, name, tool.policy());
        if (refused.isPresent()) {
            span.failed(
                    refused.get().outcome().name().toLowerCase(Locale.ROOT),
                    refused.get().message());
            audit.ended(
                    started, refused.get().outcome(), Optional.of(refused.get().message()));
            return toolError(refused.get().message());
        }
        try {
            JsonNode result = upstream.call(gateway, identity, tool.name(), arguments);
            boolean toolError = result.path("isError").asBoolean(false);
            audit.ended(
                    started,
                    toolError ? CallStore.Outcome.TOOL_ERROR : CallStore.Outcome.OK,
                    toolError ? Optional.of(firstText(result)) : Optional.empty());
            return result;
        } catch (ApiException e) {
            // the server could not be used: a tool error the agent can read, not a protocol error
            String message = e.problems().getFirst().message();
            span.failed(e.code().code(), message);
            audit.ended(started, CallStore.Outcome.FAILED, Optional.of(message));
            Optional<UserAuthorization.Required> required = userAuthorization.required(gateway, principal, e);
            if (required.isPresent()) {
                return new JsonRpcError(
                        UserAuthorization.CODE,
                        "Gateway '" + gateway.name() + "' needs your own authorization.",
                        Optional.of(required.get()));
            }
            return toolError(message);
        }
    }

    /** A call's {@code arguments}: an object, empty when it sent none or something else. */
    private static JsonNode arguments(JsonNode params) {
        return params.path("arguments").isObject() ? params.path("arguments") : Json.object();
    }

    /**
     * The agent's tools that best fit a {@value MetaTools#SEARCH_TOOLS} query, each as {@code tools/list} would
     * list it (schema included), as text for any client and as structured content.
     */
    private Map<String, Object> searchTools(Served agent, JsonNode arguments) {
        MetaTools.Search asked = MetaTools.search(arguments);
        if (!(asked instanceof MetaTools.Query query)) {
            return toolError(((MetaTools.Invalid) asked).message());
        }
        List<Map.Entry<String, BindingStore.ServedTool>> offered = agent.offered();
        List<ToolSearch.Candidate> candidates = offered.stream()
                .map(e -> new ToolSearch.Candidate(
                        e.getKey(),
                        ToolSearch.text(
                                e.getKey(), e.getValue().title(), e.getValue().description())))
                .toList();
        List<Map<String, Object>> found = search.best(query.text(), candidates, query.k()).stream()
                .map(hit -> toolJson(hit.name(), requireNonNull(agent.tools().get(hit.name()), "a ranked tool")))
                .toList();
        Map<String, Object> structured = Map.of("tools", found);
        return Map.of(
                "content",
                List.of(Map.of("type", "text", "text", Json.writeString(structured))),
                "structuredContent",
                structured);
    }

    /** Why the agent's policy refuses a call to a tool. */
    private record Refusal(CallStore.Outcome outcome, String message) {}

    /** The refusal of a denied tool, or of a call past the tool's calls a minute; empty when the call may go. */
    private Optional<Refusal> refusal(String prompt, String name, BindingStore.ToolPolicy policy) {
        if (policy.policy() == BindingStore.Policy.DENY) {
            return Optional.of(new Refusal(
                    CallStore.Outcome.DENIED, "Tool '" + name + "' is denied to agent " + prompt + " by its policy."));
        }
        if (policy.callsPerMinute().isEmpty()) {
            return Optional.empty();
        }
        int perMinute = policy.callsPerMinute().getAsInt();
        RateLimiter.Verdict verdict = rateLimits.take(
                "agent-tool/" + prompt + "/" + name,
                new RateLimiter.Limit(RateLimiter.Algorithm.TOKEN_BUCKET, perMinute, RateLimiter.Window.MINUTE));
        if (verdict.allowed()) {
            return Optional.empty();
        }
        long seconds = Math.max(1, (verdict.retryAfter().toMillis() + 999) / 1000);
        return Optional.of(new Refusal(
                CallStore.Outcome.RATE_LIMITED,
                "Agent " + prompt + " may call tool '" + name + "' " + perMinute + " times a minute; try again in "
                        + seconds + " s."));
    }

    private static Map<String, Object> toolError(String message) {
        return Map.of("content", List.of(Map.of("type", "text", "text", message)), "isError", true);
    }

    /** The first text a tool error says, as the audit keeps it (at most 1,000 characters). */
    private static String firstText(JsonNode result) {
        String text = result.at("/content/0/text").asText("");
        return text.length() > 1000 ? text.substring(0, 1000) : text;
    }

    private static Map<String, Object> toolJson(String name, BindingStore.ServedTool tool) {
        var json = new LinkedHashMap<String, Object>();
        json.put("name", name);
        tool.title().ifPresent(title -> json.put("title", title));
        json.put("description", tool.description());
        json.put("inputSchema", tool.inputSchema());
        tool.annotations().ifPresent(annotations -> json.put("annotations", annotations));
        return json;
    }

    private static String slug(String name) {
        String slug =
                name.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return slug.isEmpty() ? "gateway" : slug;
    }

    private static Map<String, Object> error(@Nullable JsonNode id, int code, String message) {
        var response = new LinkedHashMap<String, Object>();
        response.put("jsonrpc", "2.0");
        response.put("id", id);
        response.put("error", Map.of("code", code, "message", message));
        return response;
    }

    private static void reply(Context ctx, int status, Object body) {
        Responses.json(ctx, status, body);
    }
}
