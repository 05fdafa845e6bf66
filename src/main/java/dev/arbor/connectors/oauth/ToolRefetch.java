package dev.arbor.connectors.oauth;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.connectors.gateways.Gateway;
import dev.arbor.connectors.gateways.Identity;
import java.util.List;

/** Fetches a gateway's tools again, as an authorization finishes; {@code connectors.agents} does it. */
public interface ToolRefetch {
    /**
     * What changed, as {@code POST /connectors/{gateway_id}/fetch-tools} answers it (an {@code ApiException} when the
     * server fails); the server is asked as {@code identity}, whose own token a per-user gateway needs.
     */
    Fetched refetch(Gateway gateway, Identity identity);

    /** What a fetch changed: the names of the tools added, changed and removed, how many are unchanged, how many now. */
    record Fetched(
            String object,
            @JsonProperty("gateway_id") String gatewayId,
            List<String> added,
            List<String> changed,
            List<String> removed,
            int unchanged,
            int total) {
        public Fetched {
            added = List.copyOf(added);
            changed = List.copyOf(changed);
            removed = List.copyOf(removed);
        }

        public static Fetched of(
                String gatewayId,
                List<String> added,
                List<String> changed,
                List<String> removed,
                int unchanged,
                int total) {
            return new Fetched("connector.tools.fetch", gatewayId, added, changed, removed, unchanged, total);
        }
    }
}
