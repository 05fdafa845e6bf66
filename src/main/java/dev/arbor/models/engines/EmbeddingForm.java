package dev.arbor.models.engines;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What one sentence-embedding model needs around the text of a decision, read from its load options (a built-in
 * model's come from its catalog entry's {@code form}): the words it was trained to see before a text ({@code prefix},
 * such as e5's {@code "query: "}, put before the situation and before every option's text), how many tokens it reads
 * ({@code max_tokens}), how its token vectors become one ({@code pooling}: {@code mean} over the tokens, or the first,
 * {@code cls}), and its softmax temperature per primitive question type ({@code temperature.choice},
 * {@code temperature.noul}, {@code temperature.score}; or one {@code temperature} for all). What a model leaves out
 * is MiniLM's: no prefix, 256 tokens, mean pooling, {@link EmbeddingEngine#DEFAULT_TEMPERATURES}.
 *
 * <p>The prefix is for decisions only: the embeddings API and fitted heads embed the caller's text as given.
 */
record EmbeddingForm(String prefix, int maxTokens, Pooling pooling, Map<String, Double> temperatures) {
    static final int DEFAULT_MAX_TOKENS = 256;

    enum Pooling {
        MEAN,
        CLS;

        static Pooling of(String wire) {
            try {
                return valueOf(wire.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("pooling must be mean or cls, not '" + wire + "'", e);
            }
        }
    }

    EmbeddingForm {
        requireNonNull(prefix, "prefix");
        requireNonNull(pooling, "pooling");
        if (maxTokens < 1) {
            throw new IllegalArgumentException("max_tokens must be at least 1, not " + maxTokens);
        }
        if (!temperatures.keySet().equals(Scoring.Primitive.wires())
                || temperatures.values().stream().anyMatch(t -> !(t > 0))) {
            throw new IllegalArgumentException("a temperature above zero is needed for each of "
                    + Scoring.Primitive.wires() + ", not " + temperatures);
        }
        temperatures = Map.copyOf(temperatures);
    }

    static EmbeddingForm of(Map<String, String> options) {
        Optional<Double> forAll =
                Optional.ofNullable(options.get("temperature")).map(Double::parseDouble);
        Map<String, Double> temperatures = Scoring.Primitive.wires().stream()
                .collect(Collectors.toUnmodifiableMap(
                        type -> type,
                        type -> forAll.or(() -> Optional.ofNullable(options.get("temperature." + type))
                                        .map(Double::parseDouble))
                                .orElseGet(() -> requireNonNull(EmbeddingEngine.DEFAULT_TEMPERATURES.get(type)))));
        return new EmbeddingForm(
                options.getOrDefault("prefix", ""),
                Optional.ofNullable(options.get("max_tokens"))
                        .map(Integer::parseInt)
                        .orElse(DEFAULT_MAX_TOKENS),
                Pooling.of(options.getOrDefault("pooling", "mean")),
                temperatures);
    }

    /** The text the model embeds for a decision's situation or option text. */
    String text(String text) {
        return prefix + text;
    }

    double temperature(String type) {
        return requireNonNull(temperatures.get(type), type);
    }
}
