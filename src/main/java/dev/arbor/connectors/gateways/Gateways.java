package dev.arbor.connectors.gateways;

import static java.util.Objects.requireNonNull;

import dev.arbor.access.CurrentProject;
import dev.arbor.access.Principal;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import java.util.Optional;

/** How OAuth and agents find a gateway, and whether a token may use it for agents. */
public final class Gateways {
    private final GatewayStore store;

    Gateways(GatewayStore store) {
        this.store = requireNonNull(store, "store");
    }

    public Optional<Gateway> find(String id) {
        return store.find(id);
    }

    /** The gateway, or 404 {@code gateway_not_found}. */
    public Gateway require(String id) {
        return store.find(id).orElseThrow(() -> notFound(id));
    }

    /**
     * A gateway the principal may use for agents (authorize it, fetch and list its tools): any for admins, an enabled
     * one shared with one of a member's projects otherwise (403 {@code project_forbidden}).
     */
    public Gateway usable(String id, Principal principal) {
        Gateway gateway = require(id);
        boolean shared = gateway.scope().enabled()
                && (gateway.scope().global()
                        || gateway.scope().projects().stream().anyMatch(principal::mayActIn));
        if (!principal.isAdmin() && !shared) {
            throw CurrentProject.forbidden(
                    "gateway_id", "Gateway " + gateway.id() + " is not shared with a project this token may act in.");
        }
        return gateway;
    }

    static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.GATEWAY_NOT_FOUND, "gateway_id", "There is no gateway '" + id + "'.");
    }
}
