package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a router's requests since a moment came to, as {@code GET /routers/{id}/stats} answers it: counts by outcome,
 * tokens, and the same by endpoint. Written by the one JSON codec; the field names are the API's.
 *
 * @param since the moment counted from, in Unix seconds
 * @param outcomes requests by outcome ({@code ok}, {@code upstream_error}, {@code timeout}, ...), by name
 */
@JsonPropertyOrder({"router_id", "since", "requests", "outcomes", "prompt_tokens", "completion_tokens", "endpoints"})
public record RouterUsage(
        @JsonProperty("router_id") String routerId,
        @JsonProperty("since") long since,
        @JsonProperty("requests") long requests,
        @JsonProperty("outcomes") Map<String, Long> outcomes,
        @JsonProperty("prompt_tokens") long promptTokens,
        @JsonProperty("completion_tokens") long completionTokens,
        @JsonProperty("endpoints") List<EndpointUsage> endpoints) {
    public RouterUsage {
        requireNonNull(routerId, "routerId");
        outcomes = new TreeMap<>(outcomes);
        endpoints = List.copyOf(endpoints);
    }

    /** One endpoint's share: requests it answered or was tried last for. */
    @JsonPropertyOrder({"endpoint", "requests", "succeeded", "prompt_tokens", "completion_tokens", "average_latency_ms"
    })
    public record EndpointUsage(
            @JsonProperty("endpoint") String endpoint,
            @JsonProperty("requests") long requests,
            @JsonProperty("succeeded") long succeeded,
            @JsonProperty("prompt_tokens") long promptTokens,
            @JsonProperty("completion_tokens") long completionTokens,
            @JsonProperty("average_latency_ms") double averageLatencyMillis) {
        public EndpointUsage {
            requireNonNull(endpoint, "endpoint");
        }
    }
}
