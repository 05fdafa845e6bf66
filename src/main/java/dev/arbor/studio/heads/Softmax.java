package dev.arbor.studio.heads;

import static java.util.Objects.requireNonNull;

import dev.arbor.studio.questions.Probabilities;
import java.util.Arrays;

/**
 * One fitted softmax layer over an embedding: a weight row and a bias per class, applied to the raw vector, the
 * logits divided by a temperature fitted on out-of-fold predictions so that its probabilities are calibrated.
 *
 * @param weights {@code classes} rows of {@code dimension} weights followed by the row's bias
 * @param regularisation the L2 strength chosen by cross-validation (on standardised features, per example)
 * @param cvAccuracy accuracy of the out-of-fold predictions, calibrated
 * @param cvLogLoss log loss of the out-of-fold predictions, calibrated
 */
public record Softmax(
        int classes,
        int dimension,
        float[] weights,
        double temperature,
        double regularisation,
        double cvAccuracy,
        double cvLogLoss) {
    public Softmax {
        requireNonNull(weights, "weights");
        if (classes < 2 || dimension < 1 || weights.length != classes * (dimension + 1)) {
            throw new IllegalArgumentException("a softmax of " + classes + " classes over " + dimension
                    + " dimensions needs " + classes * (dimension + 1) + " weights, not " + weights.length);
        }
        if (!(temperature > 0)) {
            throw new IllegalArgumentException("temperature must be positive: " + temperature);
        }
        weights = weights.clone();
    }

    @Override
    public float[] weights() {
        return weights.clone();
    }

    /** The calibrated probability of each class for one vector. */
    public double[] probabilities(float[] vector) {
        if (vector.length != dimension) {
            throw new IllegalArgumentException(
                    "a vector of " + vector.length + " dimensions for a head of " + dimension);
        }
        double[] logits = new double[classes];
        int row = dimension + 1;
        for (int k = 0; k < classes; k++) {
            double sum = weights[k * row + dimension];
            for (int j = 0; j < dimension; j++) {
                sum += weights[k * row + j] * vector[j];
            }
            logits[k] = sum / temperature;
        }
        return Probabilities.softmax(logits);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Softmax that
                && classes == that.classes
                && dimension == that.dimension
                && Arrays.equals(weights, that.weights)
                && Double.compare(temperature, that.temperature) == 0
                && Double.compare(regularisation, that.regularisation) == 0
                && Double.compare(cvAccuracy, that.cvAccuracy) == 0
                && Double.compare(cvLogLoss, that.cvLogLoss) == 0;
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(weights) + Double.hashCode(temperature);
    }

    @Override
    public String toString() {
        return "Softmax[" + classes + " classes, " + dimension + " dimensions, temperature " + temperature + "]";
    }
}
