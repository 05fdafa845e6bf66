package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A gateway's tools: fetched from its MCP server on demand (what changed is reported), and listed; by admins, or by
 * members of a project the gateway is shared with. A disabled gateway's tools are neither fetched nor listed.
 */
final class ToolRoutes {
    private final Gateways gateways;
    private final ToolStore tools;
    private final McpUpstream upstream;

    ToolRoutes(Gateways gateways, ToolStore tools, McpUpstream upstream) {
        this.gateways = requireNonNull(gateways, "gateways");
        this.tools = requireNonNull(tools, "tools");
        this.upstream = requireNonNull(upstream, "upstream");
    }

    void addTo(Routes routes) {
        routes.group("connectors")
                .action(
                        "/connectors/{gateway_id}/fetch-tools",
                        "Fetch a gateway's tools from its MCP server and " + "say what changed",
                        this::fetch)
                .ok(AgentShapes.FETCHED)
                .get("/connectors/{gateway_id}/tools", "List a gateway's tools as last fetched", this::list)
                .query(PageParams.PARAMETERS)
                .ok(Schema.list(AgentShapes.TOOL));
    }

    private void fetch(Context ctx) {
        Responses.ok(ctx, refetch(gateways.usable(ctx.pathParam("gateway_id"), Access.principal(ctx))));
    }

    /** Fetches the gateway's tools again and says what changed; a server that fails leaves them as they were. */
    Map<String, Object> refetch(Gateway gateway) {
        requireEnabled(gateway);
        ToolStore.Changes changes = tools.replace(gateway.id(), upstream.tools(gateway));
        var json = new LinkedHashMap<String, Object>();
        json.put("object", "connector.tools.fetch");
        json.put("gateway_id", gateway.id());
        json.put("added", changes.added());
        json.put("changed", changes.changed());
        json.put("removed", changes.removed());
        json.put("unchanged", changes.unchanged());
        json.put("total", tools.count(gateway.id()));
        return json;
    }

    private void list(Context ctx) {
        Gateway gateway = gateways.usable(ctx.pathParam("gateway_id"), Access.principal(ctx));
        requireEnabled(gateway);
        Responses.ok(
                ctx,
                Responses.page(tools.list(gateway.id(), PageParams.from(ctx)), ToolStore.Tool::id, ToolRoutes::json));
    }

    private static void requireEnabled(Gateway gateway) {
        if (!gateway.scope().enabled()) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_DISABLED,
                    "gateway_id",
                    "Gateway " + gateway.id() + " is " + "disabled; enable it to use its tools.");
        }
    }

    private static Map<String, Object> json(ToolStore.Tool tool) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", tool.id());
        json.put("object", "connector.tool");
        json.put("gateway_id", tool.gatewayId());
        json.put("name", tool.name());
        json.put("title", tool.title().orElse(null));
        json.put("description", tool.description());
        json.put("input_schema", tool.inputSchema());
        json.put("annotations", tool.annotations().orElse(null));
        json.put("created_at", tool.createdAt() / 1000);
        json.put("updated_at", tool.updatedAt() / 1000);
        return json;
    }
}
