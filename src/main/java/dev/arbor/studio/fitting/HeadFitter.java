package dev.arbor.studio.fitting;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.heads.Head;
import dev.arbor.studio.heads.Softmax;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * Fits the head of one question from embeddings and canonical labels ({@link dev.arbor.studio.questions.Labels}).
 * Choice and yes/no: one multinomial layer over the options. Score: the levels as classes of one multinomial layer
 * (ordinal order is left to the embedding; a level never labelled cannot be learnt, so every level needs labels).
 * Rank: one multinomial layer over the options trained on each label's first option; its probabilities order the
 * options. Multi: one yes/no layer per option. Number questions keep zero-shot.
 */
final class HeadFitter {
    /** Labels each class needs (each side of every option, for multi): one per cross-validation fold. */
    public static final int MIN_PER_CLASS = Logistic.MAX_FOLDS;

    /** The seed of the folds, fixed so that the same labels fit the same head. */
    private static final long SEED = 20_261_124L;

    /** One labelled embedding: the situation's vector and the canonical label of the question. */
    public record Labelled(float[] vector, JsonNode label) {
        public Labelled {
            requireNonNull(vector, "vector");
            requireNonNull(label, "label");
        }
    }

    /** What fitting one question gave: a head, or why none (with the counts per class that fell short). */
    public sealed interface Outcome permits Fitted, Refused {}

    public record Fitted(Head head) implements Outcome {}

    /** @param counts labels per class (multi: {@code option} applied and {@code option:no} not) */
    public record Refused(String why, Map<String, Integer> counts) implements Outcome {
        public Refused {
            requireNonNull(why, "why");
            counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
        }
    }

    private HeadFitter() {}

    /** Whether a question of this type can have a head. */
    public static boolean fits(QuestionType type) {
        return type != QuestionType.NUMBER;
    }

    /**
     * Fits a head for a question of {@code type} with these option keys; {@code stopped} is asked between steps, and a
     * fit it stops throws {@link Logistic.Stopped}.
     */
    public static Outcome fit(
            QuestionType type,
            List<String> options,
            List<Labelled> labelled,
            String model,
            Instant now,
            BooleanSupplier stopped) {
        requireNonNull(type, "type");
        requireNonNull(model, "model");
        requireNonNull(now, "now");
        if (!fits(type)) {
            return new Refused("a number question cannot have a fitted head; it keeps zero-shot", Map.of());
        }
        if (type == QuestionType.MULTI) {
            return multi(options, labelled, model, now, stopped);
        }
        var vectors = new ArrayList<float[]>();
        var classes = new ArrayList<Integer>();
        for (Labelled item : labelled) {
            int index = options.indexOf(optionOf(type, item.label()));
            if (index >= 0) {
                vectors.add(item.vector());
                classes.add(index);
            }
        }
        var data = data(vectors, classes, options.size());
        Map<String, Integer> counts = countsOf(type, options, labelled);
        if (data.isEmpty() || counts.values().stream().anyMatch(c -> c < MIN_PER_CLASS)) {
            return new Refused(refusal(counts), counts);
        }
        Softmax layer = Logistic.fit(data.get(), SEED, stopped);
        return new Fitted(new Head(
                type,
                options,
                List.of(layer),
                new Head.Facts(
                        model,
                        layer.dimension(),
                        vectors.size(),
                        counts,
                        layer.cvAccuracy(),
                        layer.cvLogLoss(),
                        Logistic.MAX_FOLDS,
                        now)));
    }

    private static Outcome multi(
            List<String> options, List<Labelled> labelled, String model, Instant now, BooleanSupplier stopped) {
        var vectors = new ArrayList<float[]>();
        var chosen = new ArrayList<List<String>>();
        for (Labelled item : labelled) {
            if (item.label().isArray()) {
                var applies = new ArrayList<String>();
                item.label().forEach(option -> applies.add(option.asText()));
                vectors.add(item.vector());
                chosen.add(applies);
            }
        }
        Map<String, Integer> counts = countsOf(QuestionType.MULTI, options, labelled);
        if (vectors.isEmpty() || counts.values().stream().anyMatch(c -> c < MIN_PER_CLASS)) {
            return new Refused(refusal(counts), counts);
        }
        var layers = new ArrayList<Softmax>();
        for (String option : options) {
            var sides = chosen.stream().map(c -> c.contains(option) ? 1 : 0).toList();
            layers.add(Logistic.fit(data(vectors, sides, 2).orElseThrow(), SEED, stopped));
        }
        var applied = new LinkedHashMap<String, Integer>();
        options.forEach(option -> applied.put(option, counts.get(option)));
        return new Fitted(new Head(
                QuestionType.MULTI,
                options,
                layers,
                new Head.Facts(
                        model,
                        layers.getFirst().dimension(),
                        vectors.size(),
                        applied,
                        layers.stream()
                                .mapToDouble(Softmax::cvAccuracy)
                                .average()
                                .orElseThrow(),
                        layers.stream()
                                .mapToDouble(Softmax::cvLogLoss)
                                .average()
                                .orElseThrow(),
                        Logistic.MAX_FOLDS,
                        now)));
    }

    /**
     * Labels per class, as a fit counts them: per option (multi: how often each option applied, and how often not as
     * {@code option:no}).
     */
    public static Map<String, Integer> countsOf(QuestionType type, List<String> options, List<Labelled> labelled) {
        var counts = new LinkedHashMap<String, Integer>();
        if (type == QuestionType.MULTI) {
            var chosen = labelled.stream()
                    .filter(item -> item.label().isArray())
                    .map(item -> {
                        var applies = new ArrayList<String>();
                        item.label().forEach(option -> applies.add(option.asText()));
                        return applies;
                    })
                    .toList();
            for (String option : options) {
                int applied =
                        (int) chosen.stream().filter(c -> c.contains(option)).count();
                counts.put(option, applied);
                counts.put(option + ":no", chosen.size() - applied);
            }
            return counts;
        }
        options.forEach(option -> counts.put(option, 0));
        for (Labelled item : labelled) {
            counts.computeIfPresent(optionOf(type, item.label()), (option, n) -> n + 1);
        }
        return counts;
    }

    /** The option key a canonical label names: yes/no become the yes/no question's keys, a rank its first. */
    private static String optionOf(QuestionType type, JsonNode label) {
        return switch (type) {
            case NOUL -> label.asText().equals("yes") ? "true" : "false";
            case RANK -> label.isArray() && !label.isEmpty() ? label.get(0).asText() : label.asText();
            default -> label.asText();
        };
    }

    private static Optional<Logistic.Data> data(List<float[]> vectors, List<Integer> classes, int count) {
        if (vectors.isEmpty()) {
            return Optional.empty();
        }
        int[] labels = classes.stream().mapToInt(Integer::intValue).toArray();
        return Optional.of(new Logistic.Data(vectors.toArray(float[][]::new), labels, count));
    }

    private static String refusal(Map<String, Integer> counts) {
        long seen = counts.values().stream().filter(c -> c > 0).count();
        String start = seen <= 1 ? "only one class has labels" : "too few labels";
        return start + "; every class needs at least " + MIN_PER_CLASS + " (" + counts + ")";
    }
}
