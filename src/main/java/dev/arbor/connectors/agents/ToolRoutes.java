package dev.arbor.connectors.agents;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.access.Principal;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.oauth.ToolRefetch;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import org.jspecify.annotations.Nullable;

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
        Principal principal = Access.principal(ctx);
        Responses.ok(ctx, refetch(gateways.usable(ctx.pathParam("gateway_id"), principal), Identity.of(principal)));
    }

    /** Fetches the gateway's tools again and says what changed; a server that fails leaves them as they were. */
    ToolRefetch.Fetched refetch(Gateway gateway, Identity identity) {
        requireEnabled(gateway);
        ToolStore.Changes changes = tools.replace(gateway.id(), upstream.tools(gateway, identity));
        return ToolRefetch.Fetched.of(
                gateway.id(),
                changes.added(),
                changes.changed(),
                changes.removed(),
                changes.unchanged(),
                tools.count(gateway.id()));
    }

    private void list(Context ctx) {
        Gateway gateway = gateways.usable(ctx.pathParam("gateway_id"), Access.principal(ctx));
        requireEnabled(gateway);
        Responses.ok(
                ctx, Responses.page(tools.list(gateway.id(), PageParams.from(ctx)), ToolStore.Tool::id, ToolView::of));
    }

    private static void requireEnabled(Gateway gateway) {
        if (!gateway.scope().enabled()) {
            throw ApiException.of(
                    ErrorCode.GATEWAY_DISABLED,
                    "gateway_id",
                    "Gateway " + gateway.id() + " is " + "disabled; enable it to use its tools.");
        }
    }

    /** A tool as the API shows it. */
    record ToolView(
            String id,
            String object,
            @JsonProperty("gateway_id") String gatewayId,
            String name,
            @Nullable String title,
            String description,
            @JsonProperty("input_schema") JsonNode inputSchema,
            @Nullable JsonNode annotations,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("updated_at") long updatedAt) {
        static ToolView of(ToolStore.Tool tool) {
            return new ToolView(
                    tool.id(),
                    "connector.tool",
                    tool.gatewayId(),
                    tool.name(),
                    tool.title().orElse(null),
                    tool.description(),
                    tool.inputSchema(),
                    tool.annotations().orElse(null),
                    tool.createdAt() / 1000,
                    tool.updatedAt() / 1000);
        }
    }
}
