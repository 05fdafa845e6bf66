package dev.arbor.routers;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * How a router's endpoints and requests have been doing, as the routing runtime measures them, in the API's JSON
 * shapes (the runtime owns both; the router routes only answer with them).
 */
public interface RouterTelemetry {
    /** The health of these endpoints on this server, one object each, in their order. */
    List<Map<String, Object>> endpointHealth(List<String> endpoints);

    /** What a router's requests since {@code since} came to. */
    Map<String, Object> usage(String routerId, Instant since);
}
