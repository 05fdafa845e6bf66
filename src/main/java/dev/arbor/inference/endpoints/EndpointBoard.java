package dev.arbor.inference.endpoints;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Every endpoint's state on this server, and the attempts a strategy plans from it for one request. Endpoints are
 * known by reference, so that routers sharing one share its health.
 */
public final class EndpointBoard {
    /** How often a latency-aware choice tries another endpoint than the fastest, to keep measuring it. */
    static final double EXPLORE = 0.05;
    /** Answers an endpoint needs before its latency is trusted. */
    public static final int MIN_SAMPLES = 5;

    /** One attempt of a plan. */
    public record Planned(String endpoint, Optional<Duration> timeout) {}

    private final ConcurrentHashMap<String, EndpointState> states = new ConcurrentHashMap<>();
    private final Clock clock;
    /** The calling thread's generator (requests run on threads of their own). */
    private final Supplier<RandomGenerator> random;

    public EndpointBoard(Clock clock, Supplier<RandomGenerator> random) {
        this.clock = requireNonNull(clock, "clock");
        this.random = requireNonNull(random, "random");
    }

    public EndpointState state(String endpoint) {
        EndpointState state = states.get(endpoint);
        return state != null ? state : states.computeIfAbsent(endpoint, EndpointState::new);
    }

    public long nowMillis() {
        return clock.millis();
    }

    public List<EndpointHealth> health(List<String> endpoints) {
        long now = clock.millis();
        return endpoints.stream().map(e -> state(e).health(now)).toList();
    }

    public List<EndpointHealth> health() {
        long now = clock.millis();
        return states.values().stream()
                .map(state -> state.health(now))
                .sorted(Comparator.comparing(EndpointHealth::endpoint))
                .toList();
    }

    /** The attempts for one request, in order: one, or for a fallback chain each endpoint in turn. */
    public List<Planned> plan(Strategy strategy) {
        long now = clock.millis();
        List<String> open = strategy.endpoints().stream()
                .filter(e -> !state(e).cooling(now))
                .toList();
        List<String> candidates = open.isEmpty() ? strategy.endpoints() : open;
        return switch (strategy) {
            case Strategy.Single single -> List.of(new Planned(single.endpoint(), Optional.empty()));
            case Strategy.Fallback fallback ->
                fallback.steps().stream()
                        .filter(step -> candidates.contains(step.endpoint()))
                        .map(step -> new Planned(step.endpoint(), step.timeout()))
                        .toList();
            case Strategy.Weighted weighted -> List.of(new Planned(drawn(weighted, candidates), Optional.empty()));
            case Strategy.LeastBusy ignored ->
                List.of(new Planned(
                        candidates.stream()
                                .min(Comparator.comparingInt(e -> state(e).inFlight()))
                                .orElseThrow(),
                        Optional.empty()));
            case Strategy.LatencyAware aware ->
                List.of(new Planned(fastest(candidates, aware.percentile()), Optional.empty()));
        };
    }

    private String drawn(Strategy.Weighted weighted, List<String> candidates) {
        var eligible = new ArrayList<Strategy.Weight>();
        double total = 0;
        for (Strategy.Weight weight : weighted.weights()) {
            if (candidates.contains(weight.endpoint())) {
                eligible.add(weight);
                total += weight.weight();
            }
        }
        double point = random.get().nextDouble() * total;
        for (Strategy.Weight weight : eligible) {
            point -= weight.weight();
            if (point < 0) {
                return weight.endpoint();
            }
        }
        return eligible.getLast().endpoint(); // rounding left the point at the very end
    }

    private String fastest(List<String> candidates, Strategy.Percentile percentile) {
        for (String endpoint : candidates) {
            if (state(endpoint).latencies().samples() < MIN_SAMPLES) {
                return endpoint;
            }
        }
        RandomGenerator generator = random.get();
        if (candidates.size() > 1 && generator.nextDouble() < EXPLORE) {
            return candidates.get(generator.nextInt(candidates.size()));
        }
        return candidates.stream()
                .min(Comparator.comparingDouble(e -> {
                    LatencyWindow window = state(e).latencies();
                    return percentile == Strategy.Percentile.P50 ? window.p50Millis() : window.p95Millis();
                }))
                .orElseThrow();
    }
}
