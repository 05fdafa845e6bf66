package dev.arbor.inference;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a router's requests since a moment came to: counts by outcome, tokens, and the same by endpoint.
 *
 * @param outcomes requests by outcome ({@code ok}, {@code upstream_error}, {@code timeout}, ...)
 */
record UsageSummary(
        String routerId,
        Instant since,
        long requests,
        Map<String, Long> outcomes,
        long promptTokens,
        long completionTokens,
        List<EndpointUsage> endpoints) {
    public UsageSummary {
        requireNonNull(routerId, "routerId");
        requireNonNull(since, "since");
        outcomes = Map.copyOf(outcomes);
        endpoints = List.copyOf(endpoints);
    }

    /** One endpoint's share: requests it answered or was tried last for. */
    public record EndpointUsage(
            String endpoint,
            long requests,
            long succeeded,
            long promptTokens,
            long completionTokens,
            double averageLatencyMillis) {
        public EndpointUsage {
            requireNonNull(endpoint, "endpoint");
        }

        public Map<String, Object> toJson() {
            var json = new LinkedHashMap<String, Object>();
            json.put("endpoint", endpoint);
            json.put("requests", requests);
            json.put("succeeded", succeeded);
            json.put("prompt_tokens", promptTokens);
            json.put("completion_tokens", completionTokens);
            json.put("average_latency_ms", averageLatencyMillis);
            return json;
        }
    }

    public Map<String, Object> toJson() {
        var json = new LinkedHashMap<String, Object>();
        json.put("router_id", routerId);
        json.put("since", since.getEpochSecond());
        json.put("requests", requests);
        json.put("outcomes", new TreeMap<>(outcomes));
        json.put("prompt_tokens", promptTokens);
        json.put("completion_tokens", completionTokens);
        json.put("endpoints", endpoints.stream().map(EndpointUsage::toJson).toList());
        return json;
    }
}
