package dev.arbor.connectors;

import dev.arbor.access.Access;
import dev.arbor.connectors.agents.Agents;
import dev.arbor.connectors.gateways.ConnectorChanges;
import dev.arbor.connectors.gateways.ConnectorSettings;
import dev.arbor.connectors.gateways.GatewayModule;
import dev.arbor.connectors.gateways.Gateways;
import dev.arbor.connectors.oauth.GatewayOAuth;
import dev.arbor.connectors.oauth.OAuthRoutes;
import dev.arbor.connectors.oauth.UserAuthorization;
import dev.arbor.connectors.sessions.AgentSessions;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.ratelimits.RateLimiter;
import dev.arbor.platform.secrets.SecretBox;
import dev.arbor.platform.timers.Repeating;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
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
    private final GatewayModule gateways;
    private final Gateways lookup;
    private final Access access;
    private final ConnectorSettings settings;
    private final GatewayOAuth oauth;
    private final OAuthRoutes oauthRoutes;
    private final Agents agents;
    private final AgentSessions sessions;
    private final ScheduledExecutorService refresher = Executors.newSingleThreadScheduledExecutor(
            Thread.ofVirtual().name("oauth-refresh").factory());

    public Connectors(
            Database database,
            SecretBox secrets,
            Access access,
            OutboundPolicy policy,
            OutboundClient outbound,
            ConnectorSettings settings,
            MeterRegistry meters,
            RateLimiter rateLimits,
            Supplier<String> publicUrl,
            Clock clock) {
        this.gateways = new GatewayModule(database, secrets, policy, clock);
        this.lookup = gateways.gateways();
        this.access = access;
        this.settings = settings;
        this.oauth = new GatewayOAuth(database, secrets, outbound, settings.mcpTimeout(), clock);
        this.sessions = new AgentSessions(database, clock);
        this.agents = new Agents(
                database,
                lookup,
                new ConnectorChanges(database),
                oauth,
                access,
                policy,
                outbound,
                settings,
                meters,
                rateLimits,
                new UserAuthorization(oauth, publicUrl),
                sessions,
                clock);
        // a revoked token may no longer call anything: the upstream tokens it got for itself go with it
        access.onTokenRevoked(oauth::forgetIdentity);
        this.oauthRoutes = new OAuthRoutes(lookup, oauth, agents, settings.oauthReturnHosts(), clock);
    }

    /**
     * Refreshes, every minute, the OAuth tokens that expire within five; prunes the call audit and the idle agent
     * sessions every hour.
     */
    public void start() {
        Repeating.every(
                refresher, Duration.ofMinutes(1), Duration.ofMinutes(1), "the OAuth refresh", this::refreshOAuthTokens);
        Repeating.every(
                refresher, Duration.ZERO, Duration.ofHours(1), "the tool call audit's prune", this::pruneCallAudit);
        Repeating.every(
                refresher, Duration.ofHours(1), Duration.ofHours(1), "the agent sessions' sweep", sessions::sweep);
    }

    /** Deletes the tool calls the audit keeps no longer, as the hour's timer would. */
    public void pruneCallAudit() {
        try {
            int deleted = agents.pruneCallAudit();
            if (deleted > 0) {
                LOG.info("Deleted {} audited tool calls past their retention", deleted);
            }
        } catch (RuntimeException e) {
            LOG.warn("The tool call audit's prune failed: {}", e.getMessage());
        }
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
        gateways.addRoutes(routes, oauth, agents, access, settings.stdioCommands());
        agents.addRoutes(routes);
        oauthRoutes.addTo(routes);
    }

    /** Stops the refresh sweep and closes the connections kept to gateways' servers. */
    @Override
    public void close() {
        refresher.shutdownNow();
        agents.close();
    }
}
