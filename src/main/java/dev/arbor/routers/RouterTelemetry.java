package dev.arbor.routers;

import java.time.Instant;
import java.util.List;

/**
 * How a router's endpoints and requests have been doing, as the routing runtime measures them (the runtime owns the
 * measures; the router routes only answer with them).
 */
public interface RouterTelemetry {
    /** The health of these endpoints on this server, one each, in their order. */
    List<EndpointHealthReport> endpointHealth(List<String> endpoints);

    /** What a router's requests since {@code since} came to. */
    RouterUsage usage(String routerId, Instant since);
}
