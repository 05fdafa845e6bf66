package dev.arbor.connectors.gateways;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * How an MCP server is reached: the transports a shared gateway can use. Registry servers are remote; a custom gateway
 * may also run a local command ({@code stdio}).
 */
public enum Transport {
    STREAMABLE_HTTP,
    SSE,
    STDIO;

    /** The transport as the API words it. */
    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<Transport> of(String wire) {
        return Arrays.stream(values()).filter(t -> t.wire().equals(wire)).findFirst();
    }

    static Optional<Transport> remote(String wire) {
        return of(wire).filter(t -> t != STDIO);
    }

    /** A URL ending in {@code /sse} is an SSE endpoint; anything else speaks Streamable HTTP. */
    static Transport detect(String url) {
        String path = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        return path.endsWith("/sse") ? SSE : STREAMABLE_HTTP;
    }
}
