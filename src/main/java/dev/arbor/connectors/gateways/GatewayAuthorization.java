package dev.arbor.connectors.gateways;

/**
 * A gateway's OAuth as the gateways' routes show and reset it; {@code connectors.oauth} keeps it, and the gateways
 * reach it only through this.
 */
public interface GatewayAuthorization {
    /** The authorization's status as the API words it: not_required, unauthorized, pending, authorized, ... */
    String authorization(Gateway gateway);

    /** New credentials: the tokens got with the old ones are forgotten (nothing when the gateway has none). */
    void credentialsChanged(Gateway gateway);
}
