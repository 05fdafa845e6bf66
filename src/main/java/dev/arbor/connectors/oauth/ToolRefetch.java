package dev.arbor.connectors.oauth;

import dev.arbor.connectors.gateways.Gateway;
import java.util.Map;

/** Fetches a gateway's tools again, as an authorization finishes; {@code connectors.agents} does it. */
public interface ToolRefetch {
    /** What changed, as {@code POST /connectors/{gateway_id}/fetch-tools} answers it (an {@code ApiException} when the server fails). */
    Map<String, Object> refetch(Gateway gateway);
}
