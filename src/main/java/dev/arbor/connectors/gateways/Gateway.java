package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Optional;

/**
 * A configured gateway to an MCP server; {@code secret} is opened (header values, client secret, a stdio server's
 * environment). What OAuth and agents read of a gateway.
 */
public record Gateway(
        String id,
        String name,
        Optional<String> connectorId,
        String url,
        Transport transport,
        AuthType authType,
        String description,
        ObjectNode settings,
        Optional<ObjectNode> secret,
        Scope scope,
        List<String> clients,
        long createdAt,
        long updatedAt) {
    public Gateway {
        requireNonNull(id, "id");
        clients = List.copyOf(clients);
    }

    /** Who may use a gateway: contract 2.1's scope. */
    public record Scope(boolean enabled, boolean global, List<String> projects) {
        public Scope {
            projects = List.copyOf(projects);
        }
    }

    /**
     * Whether each caller authorizes the gateway's server for itself ({@code credentials.authorization: per_user}), so
     * that its calls carry its own token, rather than every agent sharing one authorization.
     */
    public boolean authorizesPerUser() {
        return authType == AuthType.OAUTH
                && settings.path("authorization").asText("shared").equals(GatewayCredentials.PER_USER);
    }

    Gateway with(Scope newScope, List<String> newClients) {
        return changed(settings, secret, newScope, newClients);
    }

    Gateway withCredentials(ObjectNode newSettings, Optional<ObjectNode> newSecret) {
        return changed(newSettings, newSecret, scope, clients);
    }

    /** The gateway with what an update may change (as {@link GatewayStore} writes it); the rest as it was. */
    private Gateway changed(
            ObjectNode newSettings, Optional<ObjectNode> newSecret, Scope newScope, List<String> newClients) {
        return new Gateway(
                id,
                name,
                connectorId,
                url,
                transport,
                authType,
                description,
                newSettings,
                newSecret,
                newScope,
                newClients,
                createdAt,
                updatedAt);
    }

    @Override
    public String toString() {
        return "Gateway[" + id + ", " + name + ", " + url + ", secret " + (secret.isPresent() ? "set" : "none") + "]";
    }
}
