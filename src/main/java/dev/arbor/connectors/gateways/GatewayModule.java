package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.Access;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.secrets.SecretBox;
import java.time.Clock;
import java.util.List;

/**
 * The gateways part of connectors, built once: the registry, the gateways' store and its lookup ({@link #gateways}),
 * and their routes, which need OAuth and agents (built after, from the lookup).
 */
public final class GatewayModule {
    private final ConnectorRegistry registry;
    private final GatewayStore store;
    private final Gateways gateways;
    private final OutboundPolicy policy;
    private final Clock clock;

    public GatewayModule(Database database, SecretBox secrets, OutboundPolicy policy, Clock clock) {
        this.registry = new ConnectorRegistry(database, policy, clock);
        this.store = new GatewayStore(database, secrets, clock);
        this.gateways = new Gateways(store);
        this.policy = requireNonNull(policy, "policy");
        this.clock = requireNonNull(clock, "clock");
    }

    /** How OAuth and agents find a gateway. */
    public Gateways gateways() {
        return gateways;
    }

    /**
     * Adds the registry's and the gateways' routes.
     *
     * @param stdioCommands the commands a stdio gateway may run
     */
    public void addRoutes(
            Routes routes,
            GatewayAuthorization authorizations,
            GatewayUsers users,
            Access access,
            List<String> stdioCommands) {
        new RegistryRoutes(registry).addTo(routes);
        new GatewayRoutes(registry, store, gateways, authorizations, users, access, policy, stdioCommands, clock)
                .addTo(routes);
    }
}
