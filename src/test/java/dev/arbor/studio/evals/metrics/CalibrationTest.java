package dev.arbor.studio.evals.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The calibration measures on answers small enough to work out by hand. */
class CalibrationTest {
    private static Calibration.Scored yesNo(double yes, int expected) {
        return new Calibration.Scored(new double[] {1 - yes, yes}, 1.0, expected);
    }

    @Test
    void brierSumsTheSquaredErrorOverOptionsAndAveragesOverAnswers() {
        // (0.2² + 0.2²) and (0.6² + 0.6²): 0.08 and 0.72
        assertThat(Calibration.brier(List.of(yesNo(0.8, 1), yesNo(0.4, 1)))).isCloseTo(0.40, within(1e-9));
    }

    @Test
    void logLossIsTheMeanNegativeLogOfTheRightOption() {
        double expected = (-Math.log(0.8) - Math.log(0.4)) / 2; // 0.569717...
        assertThat(Calibration.logLoss(List.of(yesNo(0.8, 1), yesNo(0.4, 1)))).isCloseTo(expected, within(1e-9));
        assertThat(expected).isCloseTo(0.5697, within(1e-4));
    }

    @Test
    void theReliabilityDiagramHasTenBinsOfTheAnswersMeanTopProbabilityAndAccuracy() {
        var bins = Calibration.reliability(List.of(
                new Calibration.Outcome(0.95, true),
                new Calibration.Outcome(0.92, false),
                new Calibration.Outcome(1.0, true),
                new Calibration.Outcome(0.55, true)));
        assertThat(bins).hasSize(10);
        assertThat(bins.get(9).n()).isEqualTo(3); // 1.0 belongs to the last bin
        assertThat(bins.get(9).confidence()).isCloseTo((0.95 + 0.92 + 1.0) / 3, within(1e-9));
        assertThat(bins.get(9).accuracy()).isCloseTo(2 / 3.0, within(1e-9));
        assertThat(bins.get(5)).isEqualTo(new Calibration.Bin(0.5, 0.6, 1, 0.55, 1.0));
        assertThat(bins.get(0)).isEqualTo(new Calibration.Bin(0.0, 0.1, 0, 0, 0));
    }

    @Test
    void eceWeighsEachBinsGapBetweenAccuracyAndConfidence() {
        var outcomes = List.of(
                new Calibration.Outcome(0.95, true),
                new Calibration.Outcome(0.92, false),
                new Calibration.Outcome(0.55, true));
        // bin 9: accuracy 0.5, confidence 0.935, gap 0.435, weight 2/3 → 0.29; bin 5: gap 0.45, weight 1/3 → 0.15
        assertThat(Calibration.ece(outcomes)).isCloseTo(0.44, within(1e-9));
        assertThat(Calibration.ece(List.of(new Calibration.Outcome(1.0, true)))).isZero();
    }

    @Test
    void aConfidentMistakeIsWrongAtNinetyPercentOrMore() {
        var outcomes = List.of(
                new Calibration.Outcome(0.9, false),
                new Calibration.Outcome(0.89, false),
                new Calibration.Outcome(0.99, true));
        assertThat(Calibration.confidentMistakes(outcomes)).isEqualTo(1);
    }

    @Test
    void theGridRunsFromAQuarterToEightTimesTheCurrentTemperatureIn61LogSteps() {
        double[] grid = Calibration.grid(2.0);
        assertThat(grid).hasSize(61);
        assertThat(grid[0]).isCloseTo(0.5, within(1e-12));
        assertThat(grid[24]).as("the current temperature is a step").isCloseTo(2.0, within(1e-9));
        assertThat(grid[60]).isCloseTo(16.0, within(1e-9));
        assertThat(grid[1] / grid[0]).isCloseTo(Math.pow(32, 1 / 60.0), within(1e-12));
        assertThat(Calibration.grid(4.0)[60])
                .as("capped at the settings' maximum")
                .isEqualTo(20.0);
    }

    @Test
    void calibratedAnswersKeepTheirTemperature() {
        var scored = new ArrayList<Calibration.Scored>();
        for (int i = 0; i < 10; i++) {
            scored.add(yesNo(0.8, i < 8 ? 1 : 0)); // 0.8 sure and right 8 times in 10
        }
        Calibration.Fit fit = Calibration.fitTemperature(scored, 1.0);
        assertThat(fit.fitted()).isEqualTo(1.0);
        assertThat(fit.logLossFitted()).isEqualTo(fit.logLossCurrent());
    }

    @Test
    void overconfidentAnswersGetAHigherTemperatureAndTimidOnesALowerOne() {
        var overconfident = List.of(yesNo(0.9, 1), yesNo(0.9, 0)); // right half the time: flatter is better
        Calibration.Fit flatter = Calibration.fitTemperature(overconfident, 1.0);
        assertThat(flatter.fitted()).as("the top of the grid").isCloseTo(8.0, within(1e-9));
        assertThat(flatter.logLossFitted()).isLessThan(flatter.logLossCurrent());

        var timid = List.of(yesNo(0.8, 1), yesNo(0.7, 1)); // always right: sharper is better
        assertThat(Calibration.fitTemperature(timid, 1.0).fitted())
                .as("the bottom of the grid")
                .isCloseTo(0.25, within(1e-9));
    }

    @Test
    void theSuggestedThresholdIsTheLowestThatMeetsTheErrorBudget() {
        var outcomes = List.of(
                new Calibration.Outcome(0.6, false),
                new Calibration.Outcome(0.7, true),
                new Calibration.Outcome(0.8, false),
                new Calibration.Outcome(0.9, true),
                new Calibration.Outcome(0.95, true));
        // at 0.7: 4 act, 1 wrong (0.25); at 0.9: 2 act, none wrong
        assertThat(Calibration.suggestThreshold(outcomes, 0.25)).contains(new Calibration.Threshold(0.7, 0.8, 0.25));
        assertThat(Calibration.suggestThreshold(outcomes, 0.1)).contains(new Calibration.Threshold(0.9, 0.4, 0.0));
        assertThat(Calibration.suggestThreshold(List.of(new Calibration.Outcome(0.99, false)), 0.1))
                .isEmpty();
    }
}
