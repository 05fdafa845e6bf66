package dev.arbor.connectors.gateways;

import java.util.List;

/**
 * What agents keep of a gateway: its tools, the agents they are attached to, and what is kept open to its server;
 * {@code connectors.agents} keeps it, and the gateways' routes reach it only through this.
 */
public interface GatewayUsers {
    /** An agent (prompt) in its project. */
    record Agent(String promptId, String projectId) {}

    /** How many of the gateway's tools are stored. */
    int toolCount(String gatewayId);

    /** How many agents use the gateway's tools. */
    int agentCount(String gatewayId);

    /** Detaches the gateway from the agents of projects its scope no longer covers; returns those agents. */
    List<Agent> detachOutside(String gatewayId, Gateway.Scope scope);

    /** Closes what is kept open to the gateway's server: it is gone, disabled or has new credentials. */
    void disconnect(String gatewayId);
}
