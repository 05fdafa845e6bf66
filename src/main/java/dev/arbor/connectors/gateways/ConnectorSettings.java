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
 */
public record ConnectorSettings(Duration mcpTimeout, List<String> oauthReturnHosts, List<String> stdioCommands) {
    public ConnectorSettings {
        requireNonNull(mcpTimeout, "mcpTimeout");
        oauthReturnHosts = List.copyOf(oauthReturnHosts);
        stdioCommands = List.copyOf(stdioCommands);
    }
}
