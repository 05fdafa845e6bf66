package dev.arbor.inference;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code arbor_routing_requests_seconds} by {@code router} ({@code none} for a direct call), {@code endpoint} and
 * {@code outcome}, and {@code arbor_routing_tokens_total} by router, endpoint and {@code kind} ({@code prompt},
 * {@code completion}); meters looked up once per series, not built per request.
 */
final class RoutingMetrics {
    private static final String DIRECT = "none";

    private record Series(String router, String endpoint, String outcome) {}

    private record Tokens(String router, String endpoint, String kind) {}

    private final MeterRegistry registry;
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();
    private final Map<Tokens, Counter> tokens = new ConcurrentHashMap<>();

    RoutingMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    void record(UsageLog.Entry entry, long nanos) {
        String router = entry.routerId().orElse(DIRECT);
        timers.computeIfAbsent(
                        new Series(router, entry.endpoint(), entry.outcome().wire()), this::timer)
                .record(nanos, TimeUnit.NANOSECONDS);
        if (entry.promptTokens().isPresent()) {
            counter(new Tokens(router, entry.endpoint(), "prompt"))
                    .increment(entry.promptTokens().getAsLong());
        }
        if (entry.completionTokens().isPresent()) {
            counter(new Tokens(router, entry.endpoint(), "completion"))
                    .increment(entry.completionTokens().getAsLong());
        }
    }

    private Counter counter(Tokens series) {
        return tokens.computeIfAbsent(
                series,
                s -> Counter.builder("arbor.routing.tokens")
                        .description("Tokens of routed requests, as the endpoints counted them")
                        .tag("router", s.router())
                        .tag("endpoint", s.endpoint())
                        .tag("kind", s.kind())
                        .register(registry));
    }

    private Timer timer(Series series) {
        return Timer.builder("arbor.routing.requests")
                .description("Routed inference requests, by router, endpoint and outcome")
                .tag("router", series.router())
                .tag("endpoint", series.endpoint())
                .tag("outcome", series.outcome())
                .publishPercentileHistogram()
                .register(registry);
    }
}
