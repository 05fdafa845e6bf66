package dev.arbor.studio.evals.metrics;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * How close answers are to their labels where right and wrong is not the whole story: levels of a score, sets of a
 * multi question, orders of a rank, values of a number; and whether one version answers better than another.
 */
public final class Agreement {
    private Agreement() {}

    /** A score's answer and label as level indexes. */
    public record Levels(int expected, int predicted) {}

    /** The share of score answers at most one level from their label. */
    public static double withinOne(List<Levels> pairs) {
        return pairs.isEmpty()
                ? 0
                : pairs.stream()
                                .filter(p -> Math.abs(p.expected() - p.predicted()) <= 1)
                                .count()
                        / (double) pairs.size();
    }

    /** The mean distance, in levels, of score answers from their labels. */
    public static double meanLevelError(List<Levels> pairs) {
        return pairs.stream()
                .mapToDouble(p -> Math.abs(p.expected() - p.predicted()))
                .average()
                .orElse(0);
    }

    /** A multi question's selected options and the options its label says apply. */
    public record Selection(Set<String> expected, Set<String> predicted) {
        public Selection {
            expected = Set.copyOf(expected);
            predicted = Set.copyOf(predicted);
        }
    }

    /**
     * Micro-averaged F1 over every option of every answer: 2·TP / (2·TP + FP + FN); 1 when no answer selects or
     * expects anything (nothing to get wrong).
     */
    public static double f1(List<Selection> selections) {
        int truePositive = 0;
        int falsePositive = 0;
        int falseNegative = 0;
        for (Selection s : selections) {
            for (String option : s.predicted()) {
                if (s.expected().contains(option)) {
                    truePositive++;
                } else {
                    falsePositive++;
                }
            }
            for (String option : s.expected()) {
                if (!s.predicted().contains(option)) {
                    falseNegative++;
                }
            }
        }
        int denominator = 2 * truePositive + falsePositive + falseNegative;
        return denominator == 0 ? 1 : 2.0 * truePositive / denominator;
    }

    /** The share of multi answers whose selection is exactly the label's. */
    public static double exactMatch(List<Selection> selections) {
        return selections.isEmpty()
                ? 0
                : selections.stream()
                                .filter(s -> s.expected().equals(s.predicted()))
                                .count()
                        / (double) selections.size();
    }

    /**
     * Kendall's tau between the order a label gives some options and the order the answer ranks them in: (concordant −
     * discordant) / pairs, over the pairs of the label's options; 0 when the label orders fewer than two.
     *
     * @param expected options, best first (a part of the options is enough)
     * @param ranking every option, best first, as the answer ranks them
     */
    public static double kendallTau(List<String> expected, List<String> ranking) {
        requireNonNull(ranking, "ranking");
        var known = expected.stream().filter(ranking::contains).distinct().toList();
        int pairs = 0;
        int score = 0;
        for (int i = 0; i < known.size(); i++) {
            for (int j = i + 1; j < known.size(); j++) {
                pairs++;
                score += ranking.indexOf(known.get(i)) < ranking.indexOf(known.get(j)) ? 1 : -1;
            }
        }
        return pairs == 0 ? 0 : score / (double) pairs;
    }

    /** A number's label and the answer's estimate, and whether the label lies in the answer's range. */
    public record Estimate(double expected, double estimate, boolean withinRange) {}

    /** The mean absolute distance of the estimates from their labels. */
    public static double meanAbsoluteError(List<Estimate> estimates) {
        return estimates.stream()
                .mapToDouble(e -> Math.abs(e.expected() - e.estimate()))
                .average()
                .orElse(0);
    }

    /** The share of number labels inside the answer's range. */
    public static double withinRange(List<Estimate> estimates) {
        return estimates.isEmpty()
                ? 0
                : estimates.stream().filter(Estimate::withinRange).count() / (double) estimates.size();
    }

    /**
     * The exact two-sided McNemar p-value of {@code fixed} items (wrong before, right after) against {@code broken}
     * ones (right before, wrong after): twice the binomial(n, ½) tail at the smaller count, at most 1; 1 when no item
     * changed.
     */
    public static double mcNemarP(int fixed, int broken) {
        if (fixed < 0 || broken < 0) {
            throw new IllegalArgumentException("counts cannot be negative");
        }
        int n = fixed + broken;
        if (n == 0) {
            return 1;
        }
        int k = Math.min(fixed, broken);
        // sum of C(n, i) / 2^n for i ≤ k, in logs so that large n does not overflow
        double tail = 0;
        double logHalfN = n * Math.log(0.5);
        double logChoose = 0; // log C(n, 0)
        for (int i = 0; i <= k; i++) {
            if (i > 0) {
                logChoose += Math.log(n - i + 1) - Math.log(i);
            }
            tail += Math.exp(logChoose + logHalfN);
        }
        return Math.min(1, 2 * tail);
    }
}
