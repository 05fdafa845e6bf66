package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * Who routed a request: a router (its id, for its usage and metrics, and {@code x-router-id}) or nobody (a direct
 * call), with the response headers the router adds ({@code x-router-steps}).
 */
public record Attribution(Optional<String> routerId, Map<String, String> headers) {
    private static final Attribution DIRECT = new Attribution(Optional.empty(), Map.of());

    public Attribution {
        requireNonNull(routerId, "routerId");
        headers = Map.copyOf(headers);
    }

    /** A call that names a model endpoint itself. */
    public static Attribution direct() {
        return DIRECT;
    }

    /** A call a router routed, with the headers it adds to the answer. */
    public static Attribution router(String routerId, Map<String, String> headers) {
        return new Attribution(Optional.of(requireNonNull(routerId, "routerId")), headers);
    }
}
