package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.jspecify.annotations.Nullable;

/**
 * How an endpoint has been answering this server, as {@code GET /routers/{id}/health} and
 * {@code GET /routing/endpoints/health} answer it (null where there is nothing to say yet). Written by the one JSON
 * codec; the field names are the API's.
 *
 * @param status {@code healthy}, {@code failing} or {@code cooling}
 * @param coolingUntil when a cooling endpoint is tried again, in Unix seconds
 */
@JsonPropertyOrder({
    "endpoint",
    "status",
    "consecutive_failures",
    "cooling_until",
    "in_flight",
    "p50_ms",
    "p95_ms",
    "requests",
    "failures",
    "last_error"
})
public record EndpointHealthReport(
        @JsonProperty("endpoint") String endpoint,
        @JsonProperty("status") String status,
        @JsonProperty("consecutive_failures") int consecutiveFailures,
        @JsonProperty("cooling_until") @Nullable Long coolingUntil,
        @JsonProperty("in_flight") int inFlight,
        @JsonProperty("p50_ms") @Nullable Double p50Millis,
        @JsonProperty("p95_ms") @Nullable Double p95Millis,
        @JsonProperty("requests") long requests,
        @JsonProperty("failures") long failures,
        @JsonProperty("last_error") @Nullable String lastError) {
    public EndpointHealthReport {
        requireNonNull(endpoint, "endpoint");
        requireNonNull(status, "status");
    }
}
