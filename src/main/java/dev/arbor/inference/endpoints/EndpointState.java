package dev.arbor.inference.endpoints;

import java.time.Instant;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;

/** What this server knows of one endpoint: requests in flight, recent latencies, failures and cooling. */
public final class EndpointState {
    private final String endpoint;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final LatencyWindow latencies = new LatencyWindow();
    private int consecutiveFailures;
    private long coolingUntilMillis;
    private long requests;
    private long failures;
    private Optional<String> lastError = Optional.empty();

    EndpointState(String endpoint) {
        this.endpoint = endpoint;
    }

    public void begin() {
        inFlight.incrementAndGet();
    }

    int inFlight() {
        return inFlight.get();
    }

    LatencyWindow latencies() {
        return latencies;
    }

    synchronized boolean cooling(long nowMillis) {
        return nowMillis < coolingUntilMillis;
    }

    /** An attempt it answered (an answer the caller gets, a 4xx among them: the endpoint works). */
    public void succeeded(long latencyNanos) {
        inFlight.decrementAndGet();
        latencies.record(latencyNanos);
        synchronized (this) {
            requests++;
            consecutiveFailures = 0;
            coolingUntilMillis = 0;
        }
    }

    /** A failed attempt; after {@code failuresToCool} in a row the endpoint cools for {@code cooldownMillis}. */
    public void failed(String error, long nowMillis, int failuresToCool, long cooldownMillis) {
        inFlight.decrementAndGet();
        synchronized (this) {
            requests++;
            failures++;
            consecutiveFailures++;
            lastError = Optional.of(error);
            if (consecutiveFailures >= failuresToCool) {
                coolingUntilMillis = nowMillis + cooldownMillis;
            }
        }
    }

    /** An attempt that ended on the caller's side (it went away): says nothing of the endpoint. */
    public void abandoned() {
        inFlight.decrementAndGet();
    }

    synchronized EndpointHealth health(long nowMillis) {
        EndpointHealth.Status status = cooling(nowMillis)
                ? EndpointHealth.Status.COOLING
                : consecutiveFailures > 0 ? EndpointHealth.Status.FAILING : EndpointHealth.Status.HEALTHY;
        return new EndpointHealth(
                endpoint,
                status,
                consecutiveFailures,
                status == EndpointHealth.Status.COOLING
                        ? Optional.of(Instant.ofEpochMilli(coolingUntilMillis))
                        : Optional.empty(),
                inFlight.get(),
                optional(latencies.p50Millis()),
                optional(latencies.p95Millis()),
                requests,
                failures,
                lastError);
    }

    private static OptionalDouble optional(double value) {
        return Double.isNaN(value) ? OptionalDouble.empty() : OptionalDouble.of(value);
    }
}
