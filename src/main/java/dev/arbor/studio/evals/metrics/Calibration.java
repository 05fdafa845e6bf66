package dev.arbor.studio.evals.metrics;

import static java.util.Objects.requireNonNull;

import dev.arbor.studio.questions.Probabilities;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.DoubleStream;

/**
 * How well the probabilities of single answers (choice, yes/no, score, rank, number) match how often they are right:
 * Brier score, log loss, expected calibration error, confident mistakes, the temperature that fits best and the
 * lowest act threshold an error budget allows. Pure arithmetic over {@link Scored} answers.
 */
public final class Calibration {
    /** Probabilities below this count as this, so that one sure mistake costs a finite log loss. */
    static final double FLOOR = 1e-12;
    /** Answers at least this sure that are wrong are confident mistakes. */
    public static final double CONFIDENT = 0.9;

    static final int BINS = 10;
    /** The temperature grid: 61 steps, evenly spaced in log, from 0.25 to 8 times the current temperature. */
    static final int GRID_STEPS = 61;

    static final double GRID_LOW = 0.25;
    static final double GRID_HIGH = 8.0;
    /** The highest temperature a template may hold (see the settings' ranges). */
    static final double MAX_TEMPERATURE = 20.0;

    private Calibration() {}

    /**
     * One labelled single answer.
     *
     * @param raw the engine's probabilities per option, before the question's temperature
     * @param temperature the temperature the answer was given with
     * @param expected the index of the right option
     */
    public record Scored(double[] raw, double temperature, int expected) {
        public Scored {
            requireNonNull(raw, "raw");
            raw = raw.clone();
            if (expected < 0 || expected >= raw.length) {
                throw new IllegalArgumentException("expected " + expected + " is not an option of " + raw.length);
            }
            if (!(temperature > 0)) {
                throw new IllegalArgumentException("temperature must be positive, not " + temperature);
            }
        }

        /** The probabilities at another temperature. */
        double[] at(double otherTemperature) {
            return Probabilities.calibrate(raw, otherTemperature);
        }

        double[] probabilities() {
            return at(temperature);
        }
    }

    /** The top probability of an answer and whether its top option was right. */
    public record Outcome(double top, boolean correct) {}

    /** The outcome of each answer at its own temperature. */
    public static List<Outcome> outcomes(List<Scored> scored) {
        return scored.stream()
                .map(s -> outcome(s.probabilities(), s.expected()))
                .toList();
    }

    /** The outcome of each answer at {@code temperature}. */
    public static List<Outcome> outcomesAt(List<Scored> scored, double temperature) {
        return scored.stream()
                .map(s -> outcome(s.at(temperature), s.expected()))
                .toList();
    }

    private static Outcome outcome(double[] p, int expected) {
        int top = 0;
        for (int i = 1; i < p.length; i++) {
            if (p[i] > p[top]) {
                top = i;
            }
        }
        return new Outcome(p[top], top == expected);
    }

    /** The mean over answers of the squared distance, summed over options, from the one-hot right answer. */
    public static double brier(List<Scored> scored) {
        return mean(scored.stream().mapToDouble(s -> {
            double[] p = s.probabilities();
            double sum = 0;
            for (int i = 0; i < p.length; i++) {
                double target = i == s.expected() ? 1 : 0;
                sum += (p[i] - target) * (p[i] - target);
            }
            return sum;
        }));
    }

    /** The mean negative natural log of the right option's probability. */
    public static double logLoss(List<Scored> scored) {
        return mean(scored.stream().mapToDouble(s -> -Math.log(Math.max(FLOOR, s.probabilities()[s.expected()]))));
    }

    private static double logLossAt(List<Scored> scored, double temperature) {
        return mean(scored.stream().mapToDouble(s -> -Math.log(Math.max(FLOOR, s.at(temperature)[s.expected()]))));
    }

    /**
     * One bin of a reliability diagram: the answers whose top probability falls in {@code [from, to)} (the last bin
     * holds 1), their mean top probability and the share of them that were right (both 0 when the bin is empty).
     */
    public record Bin(double from, double to, int n, double confidence, double accuracy) {}

    /** The answers binned by top probability into 10 equal bins ([0, 0.1), ... [0.9, 1]), lowest first. */
    public static List<Bin> reliability(List<Outcome> outcomes) {
        int[] count = new int[BINS];
        double[] confidence = new double[BINS];
        int[] right = new int[BINS];
        for (Outcome o : outcomes) {
            int bin = Math.min(BINS - 1, Math.max(0, (int) Math.floor(o.top() * BINS)));
            count[bin]++;
            confidence[bin] += o.top();
            right[bin] += o.correct() ? 1 : 0;
        }
        var bins = new ArrayList<Bin>(BINS);
        for (int bin = 0; bin < BINS; bin++) {
            int n = count[bin];
            bins.add(new Bin(
                    bin / (double) BINS,
                    (bin + 1) / (double) BINS,
                    n,
                    n == 0 ? 0 : confidence[bin] / n,
                    n == 0 ? 0 : right[bin] / (double) n));
        }
        return List.copyOf(bins);
    }

    /** Expected calibration error: the share-weighted mean of each reliability bin's |accuracy − confidence|. */
    public static double ece(List<Outcome> outcomes) {
        if (outcomes.isEmpty()) {
            return 0;
        }
        double ece = 0;
        for (Bin bin : reliability(outcomes)) {
            ece += bin.n() * Math.abs(bin.accuracy() - bin.confidence()) / outcomes.size();
        }
        return ece;
    }

    /** How many answers were wrong with a top probability of at least {@value #CONFIDENT}. */
    public static int confidentMistakes(List<Outcome> outcomes) {
        return (int) outcomes.stream()
                .filter(o -> !o.correct() && o.top() >= CONFIDENT)
                .count();
    }

    /** The temperature of least log loss, and the log loss at the current temperature and at it. */
    public record Fit(double current, double fitted, double logLossCurrent, double logLossFitted) {}

    /**
     * The temperature of least mean log loss on a grid of {@value #GRID_STEPS} steps from {@value #GRID_LOW} to
     * {@value #GRID_HIGH} times {@code current} (evenly spaced in log; capped at the settings' maximum); on a tie the
     * step nearest the current temperature wins.
     */
    public static Fit fitTemperature(List<Scored> scored, double current) {
        if (scored.isEmpty()) {
            throw new IllegalArgumentException("no answers to fit a temperature on");
        }
        double best = current;
        double bestLoss = logLossAt(scored, current);
        double bestDistance = 0;
        for (double candidate : grid(current)) {
            double loss = logLossAt(scored, candidate);
            double distance = Math.abs(Math.log(candidate / current));
            if (loss < bestLoss - 1e-12 || (Math.abs(loss - bestLoss) <= 1e-12 && distance < bestDistance)) {
                best = candidate;
                bestLoss = loss;
                bestDistance = distance;
            }
        }
        return new Fit(current, best, logLossAt(scored, current), bestLoss);
    }

    /** The grid {@link #fitTemperature} searches, lowest first. */
    static double[] grid(double current) {
        double[] grid = new double[GRID_STEPS];
        for (int step = 0; step < GRID_STEPS; step++) {
            double factor = GRID_LOW * Math.pow(GRID_HIGH / GRID_LOW, step / (double) (GRID_STEPS - 1));
            grid[step] = Math.min(MAX_TEMPERATURE, current * factor);
        }
        return grid;
    }

    /** An act threshold, the share of answers that act at it, and the share of those that are wrong. */
    public record Threshold(double threshold, double coverage, double error) {}

    /**
     * The lowest act threshold (one of the answers' top probabilities) at which the answers that act are wrong no more
     * often than {@code errorBudget}; none when no threshold meets it.
     */
    public static Optional<Threshold> suggestThreshold(List<Outcome> outcomes, double errorBudget) {
        double[] tops =
                outcomes.stream().mapToDouble(Outcome::top).sorted().distinct().toArray();
        for (double threshold : tops) {
            int acting = 0;
            int wrong = 0;
            for (Outcome o : outcomes) {
                if (o.top() >= threshold) {
                    acting++;
                    wrong += o.correct() ? 0 : 1;
                }
            }
            double error = wrong / (double) acting;
            if (error <= errorBudget + 1e-12) {
                return Optional.of(new Threshold(threshold, acting / (double) outcomes.size(), error));
            }
        }
        return Optional.empty();
    }

    private static double mean(DoubleStream values) {
        return values.average().orElse(0);
    }
}
