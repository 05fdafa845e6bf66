package dev.arbor.platform.metrics;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;

/**
 * {@code arbor_deliveries_seconds}: what this server sends out to others, one series for every feature that does
 * ({@code source}: {@code notifications}, {@code triggers}), by {@code kind} ({@code email},
 * {@code webhook}), {@code outcome} ({@code delivered}, {@code failed}) and {@code error} (a code, {@code none}
 * when delivered), with the time each delivery took.
 */
public final class Deliveries {
    private static final String NO_ERROR = "none";

    private final String source;
    private final Meter.MeterProvider<Timer> deliveries;

    public Deliveries(MeterRegistry registry, String source) {
        this.source = requireNonNull(source, "source");
        this.deliveries = Timer.builder("arbor.deliveries")
                .description("Messages sent out (notifications, webhooks) by source, kind and outcome")
                .withRegistry(registry);
    }

    public void delivered(String kind, long sinceNanos) {
        record(kind, "delivered", NO_ERROR, sinceNanos);
    }

    public void failed(String kind, String errorCode, long sinceNanos) {
        record(kind, "failed", errorCode, sinceNanos);
    }

    private void record(String kind, String outcome, String error, long sinceNanos) {
        deliveries
                .withTags("source", source, "kind", kind, "outcome", outcome, "error", error)
                .record(System.nanoTime() - sinceNanos, TimeUnit.NANOSECONDS);
    }
}
