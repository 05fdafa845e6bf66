package dev.arbor.inference.spend;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code arbor_spend_usd_total} and {@code arbor_spend_tokens_total} (by {@code kind}: prompt, completion) by
 * {@code project}, {@code model} (the endpoint that answered: a cloud model's id or a deployment's) and {@code key} (an
 * inference key's id; {@code none} for an admin's or member's token). The label sets are bounded: a server keeps at
 * most {@link #MAX_SERIES} combinations, in the order it first sees them; later ones are counted under
 * {@code project="other", model="other", key="other"}, so that a scrape stays small however many keys make requests.
 * The exact spend is in the usage rows ({@code GET /spend}); these counters are floating point, for dashboards.
 */
public final class SpendMetrics {
    /** The most (project, model, key) combinations a server labels. */
    public static final int MAX_SERIES = 1_000;

    static final String NONE = "none";
    static final String OTHER = "other";

    private record Series(String project, String model, String key) {}

    private record Meters(Counter usd, Counter prompt, Counter completion) {}

    private final MeterRegistry registry;
    private final Map<Series, Meters> series = new ConcurrentHashMap<>();

    public SpendMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Counts one request's cost and tokens. */
    public void record(
            Optional<String> project,
            String model,
            Optional<String> key,
            OptionalLong costPicoUsd,
            OptionalLong promptTokens,
            OptionalLong completionTokens) {
        Meters meters = meters(new Series(project.orElse(NONE), model, key.orElse(NONE)));
        if (costPicoUsd.isPresent()) {
            meters.usd().increment(costPicoUsd.getAsLong() / 1e12);
        }
        if (promptTokens.isPresent()) {
            meters.prompt().increment(promptTokens.getAsLong());
        }
        if (completionTokens.isPresent()) {
            meters.completion().increment(completionTokens.getAsLong());
        }
    }

    private Meters meters(Series wanted) {
        Meters known = series.get(wanted);
        if (known != null) {
            return known;
        }
        Series labelled = series.size() < MAX_SERIES ? wanted : new Series(OTHER, OTHER, OTHER);
        return series.computeIfAbsent(labelled, this::register);
    }

    private Meters register(Series s) {
        return new Meters(
                Counter.builder("arbor.spend.usd")
                        .description("What routed requests cost, in USD, by project, model and inference key")
                        .tags("project", s.project(), "model", s.model(), "key", s.key())
                        .register(registry),
                tokens(s, "prompt"),
                tokens(s, "completion"));
    }

    private Counter tokens(Series s, String kind) {
        return Counter.builder("arbor.spend.tokens")
                .description("Tokens of routed requests by project, model and inference key")
                .tags("project", s.project(), "model", s.model(), "key", s.key(), "kind", kind)
                .register(registry);
    }
}
