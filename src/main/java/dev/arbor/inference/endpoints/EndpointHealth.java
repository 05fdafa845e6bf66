package dev.arbor.inference.endpoints;

import static java.util.Objects.requireNonNull;

import dev.arbor.routers.EndpointHealthReport;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * How an endpoint has been answering this server (since its start: health is not stored).
 *
 * @param consecutiveFailures failures since its last success
 * @param coolingUntil when a cooling endpoint is tried again
 * @param inFlight requests it is answering now
 * @param p50Millis the median of its recent answers' latencies (the last {@value LatencyWindow#SIZE})
 * @param requests attempts sent to it
 * @param failures attempts that failed (429, 5xx, timeouts, unreachable, broken answers)
 * @param lastError what its last failure was
 */
public record EndpointHealth(
        String endpoint,
        Status status,
        int consecutiveFailures,
        Optional<Instant> coolingUntil,
        int inFlight,
        OptionalDouble p50Millis,
        OptionalDouble p95Millis,
        long requests,
        long failures,
        Optional<String> lastError) {
    public EndpointHealth {
        requireNonNull(endpoint, "endpoint");
        requireNonNull(status, "status");
        requireNonNull(coolingUntil, "coolingUntil");
        requireNonNull(p50Millis, "p50Millis");
        requireNonNull(p95Millis, "p95Millis");
        requireNonNull(lastError, "lastError");
    }

    public enum Status {
        /** Its last attempt succeeded, or it was never tried. */
        HEALTHY,
        /** Its last attempts failed, not yet enough of them to cool it (or its cooling ended: it is being tried). */
        FAILING,
        /** Skipped until {@code coolingUntil}. */
        COOLING;

        public String wire() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** This health as the API answers it. */
    public EndpointHealthReport report() {
        return new EndpointHealthReport(
                endpoint,
                status.wire(),
                consecutiveFailures,
                coolingUntil.map(Instant::getEpochSecond).orElse(null),
                inFlight,
                p50Millis.isPresent() ? p50Millis.getAsDouble() : null,
                p95Millis.isPresent() ? p95Millis.getAsDouble() : null,
                requests,
                failures,
                lastError.orElse(null));
    }
}
