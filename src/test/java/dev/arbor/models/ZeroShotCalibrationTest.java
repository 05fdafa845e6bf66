package dev.arbor.models;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.models.engines.Scoring;
import dev.arbor.testing.BundledModels;
import dev.arbor.testing.Corpora;
import dev.arbor.testing.Corpora.Item;
import dev.arbor.testing.Corpora.Part;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each bundled model's zero-shot answers on held-out public labelled text (the TEST half, which its catalog
 * temperatures were not fitted on), each model with its own form and temperatures: certainty means something — of the answers given with certainty 0.9 or more, at
 * least 85% are right (the goal is 90%; a slice of a few hundred items supports this much) — and accuracy stays at or
 * above the floor measured for each set (bench/studio-zeroshot). The model is deterministic, so these are exact.
 */
class ZeroShotCalibrationTest {
    private static final int ITEMS = 300;
    /**
     * The words of the TEST half, all 3,533 (a word is quick to embed): at the choice temperature only 11 of them came
     * back with certainty 0.9 or more, every one wrong, which a slice of 300 does not reach.
     */
    private static final int ALL_WORDS = 4_000;
    /**
     * Floors a little under what the sets measure (159, 204, 227, 251 and 194 of 300, and 0.222 of the TEST words; the
     * test prints them). Spam asked bare ranks spam below ham (AUC 0.40 on 1,000 mails, bench/studio-zeroshot), under
     * "never spam" whatever the calibration, and the words' levels are read worse than "always negative" (0.447): their
     * floors only say they get no worse. Sentiment's chance is 0.5, topics' 0.33, the words' 0.2; the reviews' score
     * is right when its level is on the label's side, two levels of five.
     */
    private static final double ACCURACY_SPAM = 0.48;

    private static final double ACCURACY_SENTIMENT = 0.63;
    private static final double ACCURACY_SENTIMENT_WRITTEN_SIDES = 0.70;
    private static final double ACCURACY_TOPIC = 0.78;
    private static final double ACCURACY_WORD_VALENCE = 0.20;
    private static final double ACCURACY_REVIEW_VALENCE = 0.62;

    /**
     * e5's floors, a little under what it measures on the same slices (103, 276, 270, 257 and 262 of 300, and 0.233
     * of the TEST words): it reads sentiment far better than MiniLM, bare or with written sides, topics a little
     * better, and mail spam asked bare worse (both under "never spam").
     */
    private static final double E5_ACCURACY_SPAM = 0.30;

    private static final double E5_ACCURACY_SENTIMENT = 0.88;
    private static final double E5_ACCURACY_SENTIMENT_WRITTEN_SIDES = 0.86;
    private static final double E5_ACCURACY_TOPIC = 0.78;
    private static final double E5_ACCURACY_WORD_VALENCE = 0.20;
    private static final double E5_ACCURACY_REVIEW_VALENCE = 0.62;

    /** One of each model's loaded for the whole class: the worker processes are started once. */
    @RegisterExtension
    static final BundledModels MODELS = new BundledModels();

    /** One question over one corpus: the option each label means, and how many TEST items it is asked on. */
    record Case(String name, Scoring.Question question, Supplier<List<Item>> corpus, List<String> labels, int items) {
        Case(String name, Scoring.Question question, Supplier<List<Item>> corpus, List<String> labels) {
            this(name, question, corpus, labels, ITEMS);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Arguments> cases() {
        return Stream.concat(
                cases("minilm-decider", new double[] {
                    ACCURACY_SPAM,
                    ACCURACY_SENTIMENT,
                    ACCURACY_SENTIMENT_WRITTEN_SIDES,
                    ACCURACY_TOPIC,
                    ACCURACY_WORD_VALENCE,
                    ACCURACY_REVIEW_VALENCE
                }),
                cases("e5-decider", new double[] {
                    E5_ACCURACY_SPAM,
                    E5_ACCURACY_SENTIMENT,
                    E5_ACCURACY_SENTIMENT_WRITTEN_SIDES,
                    E5_ACCURACY_TOPIC,
                    E5_ACCURACY_WORD_VALENCE,
                    E5_ACCURACY_REVIEW_VALENCE
                }));
    }

    /** The six sets for one model, with its floors in the order the sets are listed. */
    private static Stream<Arguments> cases(String model, double[] floors) {
        int[] next = {0};
        return sets().map(set -> Arguments.of(model, set, floors[next[0]++]));
    }

    private static Stream<Case> sets() {
        return Stream.of(
                new Case(
                        "spam mail, yes/no",
                        yesNo("Is this mail spam?"),
                        Corpora::spamAssassin,
                        List.of("ham", "spam")),
                new Case(
                        "review sentiment, yes/no",
                        yesNo("Is this review positive?"),
                        Corpora::sentiment,
                        List.of("negative", "positive")),
                new Case(
                        "review sentiment, yes/no with written sides",
                        new Scoring.Question(
                                "answer",
                                "noul",
                                "Is this review positive?",
                                List.of(
                                        new Scoring.Option("false", "no", "The reviewer did not like it."),
                                        new Scoring.Option("true", "yes", "The reviewer liked it."))),
                        Corpora::sentiment,
                        List.of("negative", "positive")),
                new Case(
                        "review topic, choice",
                        new Scoring.Question(
                                "topic",
                                "choice",
                                "What is this review about?",
                                List.of(
                                        new Scoring.Option("product", "product", null),
                                        new Scoring.Option("movie", "movie", null),
                                        new Scoring.Option("restaurant", "restaurant", null))),
                        Corpora::reviewTopics,
                        List.of("product", "movie", "restaurant")),
                new Case(
                        "word valence, score",
                        valence("How positive or negative is this word?"),
                        Corpora::valence,
                        Corpora.VALENCE_LEVELS,
                        ALL_WORDS),
                new Case(
                        "review sentiment, score (right when on the label's side)",
                        valence("How positive or negative is this review?"),
                        Corpora::sentiment,
                        List.of("negative", "negative", "neither", "positive", "positive")));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("cases")
    void answersGivenWithCertaintyAreMostlyRightAndAccuracyHoldsItsFloor(String model, Case one, double accuracyFloor) {
        List<Item> items = Corpora.slice(Corpora.part(one.corpus().get(), Part.TEST), one.items());
        int right = 0;
        int certain = 0;
        int certainRight = 0;
        for (Item item : items) {
            List<Double> p = MODELS.runtime()
                    .score(model, new Scoring.Request(item.text(), List.of(), List.of(one.question())))
                    .probabilities()
                    .get(one.question().key());
            int best = 0;
            for (int i = 1; i < p.size(); i++) {
                if (p.get(i) > p.get(best)) {
                    best = i;
                }
            }
            boolean ok = one.labels().get(best).equals(item.label());
            right += ok ? 1 : 0;
            if (p.get(best) >= 0.9) {
                certain++;
                certainRight += ok ? 1 : 0;
            }
        }
        System.out.printf(
                "zero-shot %s, %s: accuracy %d/%d, certain (>= 0.9) %d, right among them %d%n",
                model, one.name(), right, items.size(), certain, certainRight);

        assertThat((double) right / items.size()).as("accuracy").isGreaterThanOrEqualTo(accuracyFloor);
        assertThat(certainRight)
                .as("right among the %d answers given with certainty >= 0.9", certain)
                .isGreaterThanOrEqualTo((int) Math.ceil(0.85 * certain));
    }

    /** A score question over the five valence levels, written as the studio writes a score question's levels. */
    private static Scoring.Question valence(String instructions) {
        return new Scoring.Question(
                "valence",
                "score",
                instructions,
                Corpora.VALENCE_LEVELS.stream()
                        .map(level -> new Scoring.Option(level, level, null))
                        .toList());
    }

    private static Scoring.Question yesNo(String instructions) {
        return new Scoring.Question(
                "answer",
                "noul",
                instructions,
                List.of(new Scoring.Option("false", "no", null), new Scoring.Option("true", "yes", null)));
    }
}
