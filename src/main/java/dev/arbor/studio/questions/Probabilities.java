package dev.arbor.studio.questions;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** The arithmetic of an engine's probabilities, shared by the answers and the what-ifs of statistics. */
public final class Probabilities {
    private static final double FLOOR = 1e-12;

    private Probabilities() {}

    /** Non-finite and negative values count as zero; all zero is uniform; a missing answer too. */
    public static double[] clean(@Nullable List<Double> values, int size) {
        double[] p = new double[size];
        double total = 0;
        for (int i = 0; i < size; i++) {
            double v = values != null && i < values.size() && values.get(i) != null ? values.get(i) : 0;
            p[i] = Double.isFinite(v) && v > 0 ? v : 0;
            total += p[i];
        }
        for (int i = 0; i < size; i++) {
            p[i] = total > 0 ? p[i] / total : 1.0 / size;
        }
        return p;
    }

    /** p_i^(1/T), renormalised, in log space; a temperature of 1 changes nothing and none changes the winner. */
    public static double[] calibrate(double[] p, double temperature) {
        if (temperature == 1.0) {
            return p;
        }
        double[] logs = new double[p.length];
        for (int i = 0; i < p.length; i++) {
            logs[i] = Math.log(Math.max(p[i], FLOOR)) / temperature;
        }
        return softmax(logs);
    }

    /** The exponent of each logit, renormalised; the largest is taken off first so that none overflows. */
    public static double[] softmax(double[] logits) {
        double max = Double.NEGATIVE_INFINITY;
        for (double logit : logits) {
            max = Math.max(max, logit);
        }
        double total = 0;
        double[] out = new double[logits.length];
        for (int i = 0; i < logits.length; i++) {
            out[i] = Math.exp(logits[i] - max);
            total += out[i];
        }
        for (int i = 0; i < logits.length; i++) {
            out[i] /= total;
        }
        return out;
    }
}
