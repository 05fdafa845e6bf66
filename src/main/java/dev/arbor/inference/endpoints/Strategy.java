package dev.arbor.inference.endpoints;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * How one request picks among endpoints (each named by its reference: a cloud model's id in the registry). Only
 * {@link Fallback} tries more than one endpoint per request; every strategy skips an endpoint that is cooling down
 * after repeated failures, unless all of its endpoints are, and then tries them anyway (cooling never turns a request
 * away by itself).
 */
public sealed interface Strategy {
    /** The endpoints the strategy chooses among, each once. */
    List<String> endpoints();

    /** One endpoint. */
    record Single(String endpoint) implements Strategy {
        public Single {
            requireNonNull(endpoint, "endpoint");
        }

        @Override
        public List<String> endpoints() {
            return List.of(endpoint);
        }
    }

    /** One endpoint a request, drawn at random in proportion to the weights (relative; they need not sum to 100). */
    record Weighted(List<Weight> weights) implements Strategy {
        public Weighted {
            weights = List.copyOf(weights);
            requireDistinct(weights.stream().map(Weight::endpoint).toList());
        }

        @Override
        public List<String> endpoints() {
            return weights.stream().map(Weight::endpoint).toList();
        }
    }

    record Weight(String endpoint, double weight) {
        public Weight {
            requireNonNull(endpoint, "endpoint");
            if (!(weight > 0) || Double.isInfinite(weight)) {
                throw new IllegalArgumentException("a weight must be positive and finite: " + weight);
            }
        }
    }

    /**
     * The endpoints in order: the next is tried when one answers 429 or 5xx, times out or cannot be reached — for a
     * stream, only before its first byte went to the caller.
     */
    record Fallback(List<Step> steps, Set<Retry> retryOn) implements Strategy {
        public Fallback {
            steps = List.copyOf(steps);
            requireDistinct(steps.stream().map(Step::endpoint).toList());
            retryOn = Set.copyOf(retryOn);
        }

        /** A chain that goes on after every kind of failure. */
        public Fallback(List<Step> steps) {
            this(steps, EnumSet.allOf(Retry.class));
        }

        @Override
        public List<String> endpoints() {
            return steps.stream().map(Step::endpoint).toList();
        }
    }

    /** The failures after which a fallback chain tries its next endpoint; after any other it answers with that one. */
    enum Retry {
        /** The endpoint answered 429. */
        RATE_LIMITED,
        /** It answered 5xx, or something that is not an answer of the API. */
        SERVER_ERROR,
        /** It did not answer in time. */
        TIMEOUT,
        /** It could not be reached: refused, reset, not resolved, not allowed, or no longer in the registry. */
        CONNECTION_REFUSED
    }

    /** One endpoint of a fallback chain, with its own timeout or the server's. */
    record Step(String endpoint, Optional<Duration> timeout) {
        public Step {
            requireNonNull(endpoint, "endpoint");
            requireNonNull(timeout, "timeout");
            timeout.filter(t -> t.isNegative() || t.isZero()).ifPresent(t -> {
                throw new IllegalArgumentException("a timeout must be positive: " + t);
            });
        }
    }

    /** The endpoint with the fewest requests in flight from this server (ties go to the first listed). */
    record LeastBusy(List<String> endpoints) implements Strategy {
        public LeastBusy {
            endpoints = List.copyOf(endpoints);
            requireDistinct(endpoints);
        }
    }

    /**
     * The endpoint whose recent answers were fastest at the percentile asked for; one without enough answers yet is
     * tried first (so that it is measured), and now and then another one is, so that a slow endpoint that got fast
     * again is noticed.
     */
    record LatencyAware(List<String> endpoints, Percentile percentile) implements Strategy {
        public LatencyAware {
            endpoints = List.copyOf(endpoints);
            requireDistinct(endpoints);
            requireNonNull(percentile, "percentile");
        }
    }

    enum Percentile {
        P50,
        P95
    }

    private static void requireDistinct(List<String> endpoints) {
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("a strategy needs at least one endpoint");
        }
        if (new HashSet<>(endpoints).size() != endpoints.size()) {
            throw new IllegalArgumentException("an endpoint is listed twice: " + endpoints);
        }
    }
}
