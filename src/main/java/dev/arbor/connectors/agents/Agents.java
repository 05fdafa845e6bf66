package dev.arbor.connectors.agents;

import dev.arbor.access.Access;
import dev.arbor.connectors.gateways.ConnectorChanges;
import dev.arbor.connectors.gateways.ConnectorSettings;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.GatewayUsers;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.gateways.Identity;
import dev.arbor.connectors.oauth.GatewayOAuth;
import dev.arbor.connectors.oauth.ToolRefetch;
import dev.arbor.connectors.oauth.UserAuthorization;
import dev.arbor.connectors.search.ToolSearch;
import dev.arbor.connectors.sessions.AgentSessions;
import dev.arbor.models.TextEmbeddings;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;

/**
 * Gateways' tools and the agents that use them, built in one place: the calls to gateways' MCP servers, the tools
 * fetched from them, agents' attachments and each agent's MCP endpoint. The gateways and OAuth reach it through
 * {@link GatewayUsers} and {@link ToolRefetch}.
 */
public final class Agents implements GatewayUsers, ToolRefetch, AutoCloseable {
    private final McpUpstream upstream;
    private final ToolStore toolStore;
    private final BindingStore bindings;
    private final ToolRoutes tools;
    private final AgentRoutes agents;
    private final AgentEndpoint endpoint;
    private final CallAudit audit;
    private final CallRoutes calls;

    /** @param oauth the tokens of OAuth gateways, for calls to their servers */
    public Agents(
            Database database,
            Gateways gateways,
            ConnectorChanges changes,
            GatewayOAuth oauth,
            Access access,
            OutboundPolicy policy,
            OutboundClient outbound,
            ConnectorSettings settings,
            MeterRegistry meters,
            RateLimiter rateLimits,
            UserAuthorization userAuthorization,
            AgentSessions sessions,
            Clock clock) {
        this.upstream = new McpUpstream(policy, outbound, oauth, settings.stdioCommands(), settings.mcpTimeout());
        this.toolStore = new ToolStore(database, clock);
        this.bindings = new BindingStore(database, clock);
        this.tools = new ToolRoutes(gateways, toolStore, upstream);
        this.agents = new AgentRoutes(gateways, toolStore, bindings, access);
        var callStore = new CallStore(database);
        this.audit = new CallAudit(callStore, meters, settings.auditRetention(), clock);
        this.calls = new CallRoutes(callStore, access);
        this.endpoint = new AgentEndpoint(
                gateways,
                bindings,
                upstream,
                changes,
                audit,
                rateLimits,
                userAuthorization,
                sessions,
                new ToolSearch(TextEmbeddings::bundled));
    }

    /** The routes of gateways' tools, agents' attachments and agents' MCP endpoints. */
    public void addRoutes(Routes routes) {
        tools.addTo(routes);
        agents.addTo(routes);
        endpoint.addTo(routes);
        calls.addTo(routes);
    }

    /** Deletes the audit rows of tool calls older than the retention; how many. */
    public int pruneCallAudit() {
        return audit.prune();
    }

    @Override
    public ToolRefetch.Fetched refetch(Gateway gateway, Identity identity) {
        return tools.refetch(gateway, identity);
    }

    @Override
    public int toolCount(String gatewayId) {
        return toolStore.count(gatewayId);
    }

    @Override
    public int agentCount(String gatewayId) {
        return bindings.promptsUsing(gatewayId);
    }

    @Override
    public List<Agent> detachOutside(String gatewayId, Gateway.Scope scope) {
        return bindings.detachOutside(gatewayId, scope);
    }

    @Override
    public void disconnect(String gatewayId) {
        upstream.forget(gatewayId);
    }

    /** Closes the connections kept to gateways' servers. */
    @Override
    public void close() {
        upstream.close();
    }
}
