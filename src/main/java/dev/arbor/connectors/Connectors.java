package dev.arbor.connectors;

import dev.arbor.access.Access;
import dev.arbor.connectors.agents.Agents;
import dev.arbor.connectors.oauth.GatewayOAuth;
import dev.arbor.connectors.oauth.OAuthRoutes;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP connectors: the registry of MCP servers (a curated catalog plus admins' own entries), each with the credential
 * schema its gateways take; the gateways configured from it or to servers of one's own, with their OAuth
 * ({@code connectors.oauth}), tools and agents' attachments; and an MCP endpoint per agent ({@code connectors.agents}).
 * Every part is built here and given the others it needs.
 */
public final class Connectors implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Connectors.class);
    private static final QueryParam SEARCH = new QueryParam("q", Schema.string(), "Words the names contain.");
    private final ConnectorRegistry registry;
    private final GatewayRoutes gateways;
    private final Gateways lookup;
    private final GatewayOAuth oauth;
    private final OAuthRoutes oauthRoutes;
    private final Agents agents;
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("oauth-refresh").factory());

    public Connectors(
            Database database,
            SecretBox secrets,
            Access access,
            OutboundPolicy policy,
            OutboundClient outbound,
            ConnectorSettings settings,
            Clock clock) {
        this.registry = new ConnectorRegistry(database, policy, clock);
        var gatewayStore = new GatewayStore(database, secrets, clock);
        this.lookup = new Gateways(gatewayStore);
        this.oauth = new GatewayOAuth(database, secrets, outbound, settings.mcpTimeout(), clock);
        this.agents = new Agents(
                database, lookup, new ConnectorChanges(database), oauth, access, policy, outbound, settings, clock);
        this.gateways = new GatewayRoutes(
                registry, gatewayStore, lookup, oauth, agents, access, policy, settings.stdioCommands(), clock);
        this.oauthRoutes = new OAuthRoutes(lookup, oauth, agents, settings.oauthReturnHosts(), clock);
    }

    /** Refreshes, every minute, the OAuth tokens that expire within five. */
    public void start() {
        refresher.scheduleWithFixedDelay(this::refreshOAuthTokens, 1, 1, TimeUnit.MINUTES);
    }

    /** Refreshes the OAuth tokens about to expire now, as the minute's timer would. */
    public void refreshOAuthTokens() {
        try {
            oauth.refreshDue(lookup);
        } catch (RuntimeException e) {
            LOG.warn("The OAuth refresh sweep failed: {}", e.getMessage());
        }
    }

    public void addRoutes(Routes routes) {
        routes.group("connectors")
                .get("/connectors/registry", "List the registry's MCP servers by name (q searches names)", this::list)
                .query(PageParams.PARAMETERS)
                .query(SEARCH)
                .ok(Schema.list(ApiShapes.CONNECTOR))
                .get(
                        "/connectors/registry/{connector_id}",
                        "Get a registry entry with its credential schema",
                        this::get)
                .ok(ApiShapes.CONNECTOR)
                .post("/connectors/registry", "Add an MCP server of your own to the registry", this::add)
                .body(ConnectorRegistry.NEW_CONNECTOR.schema())
                .created(ApiShapes.CONNECTOR)
                .delete("/connectors/registry/{connector_id}", "Remove an entry added to the registry", this::remove)
                .ok(Schema.deleted("connector"));
        gateways.addTo(routes);
        agents.addRoutes(routes);
        oauthRoutes.addTo(routes);
    }

    private void list(Context ctx) {
        Access.requireAdmin(ctx);
        Page page = PageParams.from(ctx);
        List<Connector> all = registry.list(SEARCH.read(ctx).filter(q -> !q.isBlank()));
        int from = 0;
        int to = all.size();
        if (page.after().isPresent()) {
            from = position(all, page.after().get(), page) + 1;
            to = Math.min(all.size(), from + page.limit());
        } else if (page.before().isPresent()) {
            to = position(all, page.before().get(), page);
            from = Math.max(0, to - page.limit());
        } else {
            to = Math.min(all.size(), page.limit());
        }
        List<Connector> shown = all.subList(from, to);
        boolean more = page.before().isPresent() ? from > 0 : to < all.size();
        Responses.ok(
                ctx,
                Responses.list(
                        shown.stream().map(c -> c.toJson(false)).toList(),
                        shown.stream().map(Connector::id).toList(),
                        more));
    }

    private static int position(List<Connector> all, String cursor, Page page) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).id().equals(cursor)) {
                return i;
            }
        }
        throw page.unknownCursor();
    }

    private void get(Context ctx) {
        Access.requireAdmin(ctx);
        Responses.ok(ctx, registry.require(ctx.pathParam("connector_id")).toJson(true));
    }

    private void add(Context ctx) {
        Access.requireAdmin(ctx);
        Connector connector = registry.add(Requests.jsonObject(ctx));
        Responses.created(ctx, "/connectors/registry/" + connector.id(), connector.toJson(true));
    }

    private void remove(Context ctx) {
        Access.requireAdmin(ctx);
        String id = ctx.pathParam("connector_id");
        registry.remove(id);
        Responses.ok(ctx, Map.of("id", id, "object", "connector.deleted", "deleted", true));
    }

    /** Stops the refresh sweep and closes the connections kept to gateways' servers. */
    @Override
    public void close() {
        refresher.shutdownNow();
        agents.close();
    }
}
