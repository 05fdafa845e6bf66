package dev.arbor.studio.fitting;

import static java.util.Objects.requireNonNull;

import dev.arbor.studio.heads.Softmax;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;

/**
 * Multinomial logistic regression on embeddings, in plain Java: features standardised per dimension, an L2 penalty
 * chosen from a small grid by stratified k-fold cross-validation (out-of-fold log loss, a fixed seed so the same
 * labels give the same head), each fold's weights fitted with L-BFGS, and a temperature fitted on the out-of-fold
 * logits so that the probabilities are calibrated rather than merely ranked. The head is the mean of the folds'
 * models at the chosen penalty (one linear layer: the mean of their logits), so that the temperature is applied to
 * the models it was fitted on; a model refitted on every label is surer than the folds' (each saw a fifth fewer),
 * and on 120 labelled mails that made its certainty run ahead of its accuracy on held-out mail (ECE up to 0.087 over
 * twenty samples, against 0.072 for the mean; FittedHeadCalibrationTest). The grid is walked from the
 * strongest penalty down, each fold's fit starting from its solution at the penalty before (a warm start: fewer steps
 * than from zero), and the walk stops once the out-of-fold loss rises, sparing the weakest penalties, the slowest to
 * fit, when they would only overfit.
 */
final class Logistic {
    /** Penalties tried, per example on standardised features: from nearly none to strong. */
    static final double[] GRID = {1e-4, 1e-3, 1e-2, 1e-1, 1};

    static final int MAX_FOLDS = 5;
    private static final int MEMORY = 10;
    private static final int MAX_ITERATIONS = 400;
    private static final double TOLERANCE = 1e-6;

    private Logistic() {}

    /** Labelled vectors: {@code labels[i]} is the class of {@code vectors[i]}, from 0 to {@code classes - 1}. */
    record Data(float[][] vectors, int[] labels, int classes) {
        Data {
            requireNonNull(vectors, "vectors");
            requireNonNull(labels, "labels");
            if (vectors.length != labels.length || vectors.length == 0) {
                throw new IllegalArgumentException("one label per vector, and at least one");
            }
        }

        int dimension() {
            return vectors[0].length;
        }
    }

    /**
     * Fits a calibrated softmax on the data; every class must have at least {@code MAX_FOLDS} labels (the caller
     * refuses less with the counts). {@code stopped} is asked between fits so that a cancelled fit ends soon.
     */
    static Softmax fit(Data data, long seed, BooleanSupplier stopped) {
        int[] counts = counts(data);
        for (int count : counts) {
            if (count < MAX_FOLDS) {
                throw new IllegalArgumentException("every class needs " + MAX_FOLDS + " labels: " + count);
            }
        }
        int n = data.labels().length;
        int[] fold = folds(data.labels(), data.classes(), MAX_FOLDS, seed);
        var trains = new ArrayList<List<Integer>>();
        var helds = new ArrayList<List<Integer>>();
        for (int f = 0; f < MAX_FOLDS; f++) {
            var train = new ArrayList<Integer>();
            var held = new ArrayList<Integer>();
            for (int i = 0; i < n; i++) {
                (fold[i] == f ? held : train).add(i);
            }
            trains.add(train);
            helds.add(held);
        }
        // each fold's solution at the penalty before, the start of its fit at the next, weaker one
        double[][] starts = new double[MAX_FOLDS][data.classes() * (data.dimension() + 1)];
        int best = GRID.length - 1;
        double bestLoss = Double.POSITIVE_INFINITY;
        double[][] bestLogits = new double[0][];
        float[] weights = new float[0];
        for (int p = GRID.length - 1; p >= 0; p--) {
            double[][] outOfFold = new double[n][];
            float[] mean = new float[data.classes() * (data.dimension() + 1)];
            for (int f = 0; f < MAX_FOLDS; f++) {
                checkStopped(stopped);
                Standardised rows = Standardised.of(data, trains.get(f));
                starts[f] = minimise(new Objective(rows.x(), rows.y(), data.classes(), GRID[p]), starts[f]);
                float[] raw = rows.raw(starts[f], data.classes());
                for (int i : helds.get(f)) {
                    outOfFold[i] = logits(raw, data.classes(), data.vectors()[i]);
                }
                for (int j = 0; j < raw.length; j++) {
                    mean[j] += raw[j] / MAX_FOLDS;
                }
            }
            double loss = logLoss(outOfFold, data.labels(), 1);
            if (loss > bestLoss) {
                break; // past the least out-of-fold loss: weaker penalties only overfit more
            }
            bestLoss = loss;
            best = p;
            bestLogits = outOfFold;
            weights = mean;
        }
        checkStopped(stopped);
        double temperature = temperature(bestLogits, data.labels());
        return new Softmax(
                data.classes(),
                data.dimension(),
                weights,
                temperature,
                GRID[best],
                accuracy(bestLogits, data.labels()),
                logLoss(bestLogits, data.labels(), temperature));
    }

    static int[] counts(Data data) {
        int[] counts = new int[data.classes()];
        for (int label : data.labels()) {
            counts[label]++;
        }
        return counts;
    }

    private static void checkStopped(BooleanSupplier stopped) {
        if (stopped.getAsBoolean()) {
            throw new Stopped();
        }
    }

    /** Thrown when the caller stopped a fit; nothing was fitted. */
    static final class Stopped extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Stopped() {
            super("the fit was stopped", null, false, false);
        }
    }

    /**
     * Stratified folds: each class's examples shuffled with the seed and dealt round the folds, so that every fold
     * holds each class in proportion.
     */
    static int[] folds(int[] labels, int classes, int folds, long seed) {
        var random = new Random(seed);
        int[] fold = new int[labels.length];
        int next = 0;
        for (int k = 0; k < classes; k++) {
            var members = new ArrayList<Integer>();
            for (int i = 0; i < labels.length; i++) {
                if (labels[i] == k) {
                    members.add(i);
                }
            }
            Collections.shuffle(members, random);
            for (int i : members) {
                fold[i] = next++ % folds; // carried on across classes, so that small classes fill folds evenly
            }
        }
        return fold;
    }

    /**
     * The rows given, standardised per dimension (their own mean and spread), with their classes: what the objective
     * is minimised on.
     */
    private record Standardised(double[][] x, int[] y, double[] mean, double[] scale) {
        static Standardised of(Data data, List<Integer> rows) {
            int d = data.dimension();
            int n = rows.size();
            double[] mean = new double[d];
            double[] scale = new double[d];
            for (int i : rows) {
                float[] v = data.vectors()[i];
                for (int j = 0; j < d; j++) {
                    mean[j] += v[j];
                }
            }
            for (int j = 0; j < d; j++) {
                mean[j] /= n;
            }
            for (int i : rows) {
                float[] v = data.vectors()[i];
                for (int j = 0; j < d; j++) {
                    double c = v[j] - mean[j];
                    scale[j] += c * c;
                }
            }
            double[][] x = new double[n][d];
            int[] y = new int[n];
            for (int j = 0; j < d; j++) {
                scale[j] = Math.max(Math.sqrt(scale[j] / n), 1e-8);
            }
            for (int r = 0; r < n; r++) {
                float[] v = data.vectors()[rows.get(r)];
                for (int j = 0; j < d; j++) {
                    x[r][j] = (v[j] - mean[j]) / scale[j];
                }
                y[r] = data.labels()[rows.get(r)];
            }
            return new Standardised(x, y, mean, scale);
        }

        /** Weights fitted on these standardised rows, folded back to weights for raw vectors. */
        float[] raw(double[] w, int classes) {
            int d = mean.length;
            float[] raw = new float[classes * (d + 1)];
            for (int c = 0; c < classes; c++) {
                int row = c * (d + 1);
                double bias = w[row + d];
                for (int j = 0; j < d; j++) {
                    double weight = w[row + j] / scale[j];
                    raw[row + j] = (float) weight;
                    bias -= weight * mean[j];
                }
                raw[row + d] = (float) bias;
            }
            return raw;
        }
    }

    /** Mean cross-entropy of a softmax over standardised rows plus the L2 penalty, with its gradient. */
    private record Objective(double[][] x, int[] y, int classes, double penalty) {
        double value(double[] w, double[] gradient) {
            int n = x.length;
            int d = x[0].length;
            Arrays.fill(gradient, 0);
            double loss = 0;
            double[] logits = new double[classes];
            for (int i = 0; i < n; i++) {
                double[] row = x[i];
                for (int c = 0; c < classes; c++) {
                    int o = c * (d + 1);
                    logits[c] = w[o + d] + dot(w, o, row);
                }
                double max = max(logits);
                double total = 0;
                for (int c = 0; c < classes; c++) {
                    total += Math.exp(logits[c] - max);
                }
                double logTotal = max + Math.log(total);
                loss += logTotal - logits[y[i]];
                for (int c = 0; c < classes; c++) {
                    double g = (Math.exp(logits[c] - logTotal) - (c == y[i] ? 1 : 0)) / n;
                    int o = c * (d + 1);
                    for (int j = 0; j < d; j++) {
                        gradient[o + j] += g * row[j];
                    }
                    gradient[o + d] += g;
                }
            }
            loss /= n;
            for (int c = 0; c < classes; c++) {
                int o = c * (d + 1);
                for (int j = 0; j < d; j++) {
                    loss += 0.5 * penalty * w[o + j] * w[o + j];
                    gradient[o + j] += penalty * w[o + j];
                }
            }
            return loss;
        }
    }

    /** L-BFGS with a backtracking (Armijo) line search; the objective is smooth and convex. */
    private static double[] minimise(Objective objective, double[] start) {
        int size = start.length;
        double[] w = start.clone();
        double[] g = new double[size];
        double f = objective.value(w, g);
        double[][] s = new double[MEMORY][];
        double[][] yy = new double[MEMORY][];
        double[] rho = new double[MEMORY];
        int stored = 0;
        double[] nextW = new double[size];
        double[] nextG = new double[size];
        for (int iteration = 0; iteration < MAX_ITERATIONS; iteration++) {
            if (norm(g) < TOLERANCE * Math.max(1, norm(w))) {
                break;
            }
            double[] direction = g.clone();
            double[] alpha = new double[MEMORY];
            for (int m = stored - 1; m >= Math.max(0, stored - MEMORY); m--) {
                int slot = m % MEMORY;
                alpha[slot] = rho[slot] * dot(s[slot], direction);
                axpy(-alpha[slot], yy[slot], direction);
            }
            if (stored > 0) {
                int last = (stored - 1) % MEMORY;
                scale(dot(s[last], yy[last]) / dot(yy[last], yy[last]), direction);
            }
            for (int m = Math.max(0, stored - MEMORY); m < stored; m++) {
                int slot = m % MEMORY;
                double beta = rho[slot] * dot(yy[slot], direction);
                axpy(alpha[slot] - beta, s[slot], direction);
            }
            scale(-1, direction);
            double slope = dot(g, direction);
            if (slope >= 0) { // not a descent direction: start the memory again from the gradient
                direction = g.clone();
                scale(-1, direction);
                slope = dot(g, direction);
                stored = 0;
            }
            double step = stored == 0 ? 1 / Math.max(1, norm(g)) : 1;
            double nextF;
            while (true) {
                for (int i = 0; i < size; i++) {
                    nextW[i] = w[i] + step * direction[i];
                }
                nextF = objective.value(nextW, nextG);
                if (nextF <= f + 1e-4 * step * slope || step < 1e-12) {
                    break;
                }
                step /= 2;
            }
            if (step < 1e-12) {
                break;
            }
            int slot = stored % MEMORY;
            s[slot] = new double[size];
            yy[slot] = new double[size];
            for (int i = 0; i < size; i++) {
                s[slot][i] = nextW[i] - w[i];
                yy[slot][i] = nextG[i] - g[i];
            }
            double sy = dot(s[slot], yy[slot]);
            boolean improved = f - nextF > TOLERANCE * TOLERANCE * Math.max(1, Math.abs(f));
            System.arraycopy(nextW, 0, w, 0, size);
            System.arraycopy(nextG, 0, g, 0, size);
            f = nextF;
            if (sy > 1e-12) {
                rho[slot] = 1 / sy;
                stored++;
            }
            if (!improved) {
                break;
            }
        }
        return w;
    }

    /** The temperature that minimises the log loss of the out-of-fold logits (golden-section search on its log). */
    static double temperature(double[][] logits, int[] labels) {
        double low = Math.log(0.05);
        double high = Math.log(20);
        double ratio = (Math.sqrt(5) - 1) / 2;
        double a = high - ratio * (high - low);
        double b = low + ratio * (high - low);
        double fa = logLoss(logits, labels, Math.exp(a));
        double fb = logLoss(logits, labels, Math.exp(b));
        for (int i = 0; i < 80; i++) {
            if (fa < fb) {
                high = b;
                b = a;
                fb = fa;
                a = high - ratio * (high - low);
                fa = logLoss(logits, labels, Math.exp(a));
            } else {
                low = a;
                a = b;
                fa = fb;
                b = low + ratio * (high - low);
                fb = logLoss(logits, labels, Math.exp(b));
            }
        }
        return Math.exp((low + high) / 2);
    }

    static double[] logits(float[] weights, int classes, float[] vector) {
        int d = vector.length;
        double[] logits = new double[classes];
        for (int c = 0; c < classes; c++) {
            int o = c * (d + 1);
            double sum = weights[o + d];
            for (int j = 0; j < d; j++) {
                sum += weights[o + j] * vector[j];
            }
            logits[c] = sum;
        }
        return logits;
    }

    static double logLoss(double[][] logits, int[] labels, double temperature) {
        double loss = 0;
        for (int i = 0; i < labels.length; i++) {
            double[] scaled = logits[i].clone();
            scale(1 / temperature, scaled);
            double max = max(scaled);
            double total = 0;
            for (double z : scaled) {
                total += Math.exp(z - max);
            }
            loss += max + Math.log(total) - scaled[labels[i]];
        }
        return loss / labels.length;
    }

    static double accuracy(double[][] logits, int[] labels) {
        int right = 0;
        for (int i = 0; i < labels.length; i++) {
            int best = 0;
            for (int c = 1; c < logits[i].length; c++) {
                if (logits[i][c] > logits[i][best]) {
                    best = c;
                }
            }
            right += best == labels[i] ? 1 : 0;
        }
        return (double) right / labels.length;
    }

    private static double max(double[] values) {
        double max = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            max = Math.max(max, v);
        }
        return max;
    }

    /**
     * The dot product of {@code row} with {@code w} from {@code offset}, in four independent sums: the objective's
     * inner loop, which one running sum keeps from overlapping its additions.
     */
    private static double dot(double[] w, int offset, double[] row) {
        double s0 = 0;
        double s1 = 0;
        double s2 = 0;
        double s3 = 0;
        int d = row.length;
        int j = 0;
        for (; j + 3 < d; j += 4) {
            s0 += w[offset + j] * row[j];
            s1 += w[offset + j + 1] * row[j + 1];
            s2 += w[offset + j + 2] * row[j + 2];
            s3 += w[offset + j + 3] * row[j + 3];
        }
        for (; j < d; j++) {
            s0 += w[offset + j] * row[j];
        }
        return (s0 + s1) + (s2 + s3);
    }

    private static double dot(double[] a, double[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            sum += a[i] * b[i];
        }
        return sum;
    }

    private static double norm(double[] a) {
        return Math.sqrt(dot(a, a));
    }

    private static void axpy(double factor, double[] x, double[] into) {
        for (int i = 0; i < x.length; i++) {
            into[i] += factor * x[i];
        }
    }

    private static void scale(double factor, double[] values) {
        for (int i = 0; i < values.length; i++) {
            values[i] *= factor;
        }
    }
}
