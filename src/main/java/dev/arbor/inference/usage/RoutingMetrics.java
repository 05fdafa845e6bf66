package dev.arbor.inference.usage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code arbor_routing_requests_seconds} by {@code via} ({@code router}, or {@code direct} for a call naming its
 * endpoint), {@code endpoint} and {@code outcome}, and {@code arbor_routing_tokens_total} by via, endpoint and
 * {@code kind} ({@code prompt}, {@code completion}); meters looked up once per series, not built per request. No
 * label holds a project's ids (anyone allowed to scrape would read every project's, and each would be a series of its
 * own): a cloud model of the registry, which the server's admins name, is its endpoint's id, and any deployment is
 * {@code deployment}.
 */
public final class RoutingMetrics {
    private static final String VIA_ROUTER = "router";
    private static final String DIRECT = "direct";
    private static final String DEPLOYMENT = "deployment";
    /** How a deployment's id begins (platform ids are {@code <prefix>_<ULID>}). */
    private static final String DEPLOYMENT_ID = "dep_";

    private record Series(String via, String endpoint, String outcome) {}

    private record Tokens(String via, String endpoint, String kind) {}

    private final MeterRegistry registry;
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();
    private final Map<Tokens, Counter> tokens = new ConcurrentHashMap<>();

    public RoutingMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void record(UsageLog.Entry entry, long nanos) {
        String via = entry.routerId().isPresent() ? VIA_ROUTER : DIRECT;
        String endpoint = entry.endpoint().startsWith(DEPLOYMENT_ID) ? DEPLOYMENT : entry.endpoint();
        timers.computeIfAbsent(new Series(via, endpoint, entry.outcome().wire()), this::timer)
                .record(nanos, TimeUnit.NANOSECONDS);
        if (entry.promptTokens().isPresent()) {
            counter(new Tokens(via, endpoint, "prompt"))
                    .increment(entry.promptTokens().getAsLong());
        }
        if (entry.completionTokens().isPresent()) {
            counter(new Tokens(via, endpoint, "completion"))
                    .increment(entry.completionTokens().getAsLong());
        }
    }

    private Counter counter(Tokens series) {
        return tokens.computeIfAbsent(
                series,
                s -> Counter.builder("arbor.routing.tokens")
                        .description("Tokens of routed requests, as the endpoints counted them")
                        .tag("via", s.via())
                        .tag("endpoint", s.endpoint())
                        .tag("kind", s.kind())
                        .register(registry));
    }

    private Timer timer(Series series) {
        return Timer.builder("arbor.routing.requests")
                .description("Routed inference requests, by way (router or direct), endpoint and outcome")
                .tag("via", series.via())
                .tag("endpoint", series.endpoint())
                .tag("outcome", series.outcome())
                .publishPercentileHistogram()
                .register(registry);
    }
}
