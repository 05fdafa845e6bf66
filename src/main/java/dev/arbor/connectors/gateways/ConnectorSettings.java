package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;

/**
 * What gateways may do.
 *
 * @param mcpTimeout how long a gateway's MCP server may take to answer before {@code upstream_timeout}
 * @param oauthReturnHosts the hosts a gateway's OAuth authorization may return the browser to
 * @param stdioCommands the commands a stdio gateway may run
 * @param auditRetention how long the audit keeps a tool call through an agent's endpoint
 */
public record ConnectorSettings(
        Duration mcpTimeout, List<String> oauthReturnHosts, List<String> stdioCommands, Duration auditRetention) {
    public ConnectorSettings {
        requireNonNull(mcpTimeout, "mcpTimeout");
        requireNonNull(auditRetention, "auditRetention");
        oauthReturnHosts = List.copyOf(oauthReturnHosts);
        stdioCommands = List.copyOf(stdioCommands);
    }
}
