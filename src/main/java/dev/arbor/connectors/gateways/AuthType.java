package dev.arbor.connectors.gateways;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/** How a gateway to an MCP server is authorized: not at all, by headers it sends, or by OAuth. */
public enum AuthType {
    NONE,
    HEADERS,
    OAUTH;

    /** The auth type as the API words it. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<AuthType> of(String wire) {
        return Arrays.stream(values()).filter(t -> t.wire().equals(wire)).findFirst();
    }
}
