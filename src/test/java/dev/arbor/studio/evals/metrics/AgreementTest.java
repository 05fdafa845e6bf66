package dev.arbor.studio.evals.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The per-type measures and the version comparison, on cases worked out by hand. */
class AgreementTest {
    @Test
    void scoresCountAnswersWithinOneLevelAndTheMeanDistance() {
        var pairs = List.of(new Agreement.Levels(0, 0), new Agreement.Levels(0, 2), new Agreement.Levels(3, 2));
        assertThat(Agreement.withinOne(pairs)).isCloseTo(2 / 3.0, within(1e-12));
        assertThat(Agreement.meanLevelError(pairs)).isCloseTo(1.0, within(1e-12));
    }

    @Test
    void multiF1IsMicroAveragedAndExactMatchNeedsTheWholeSet() {
        var selections = List.of(
                new Agreement.Selection(Set.of("a", "b"), Set.of("a")),
                new Agreement.Selection(Set.of("c"), Set.of("c", "d")));
        // TP 2 (a, c), FP 1 (d), FN 1 (b): 4 / 6
        assertThat(Agreement.f1(selections)).isCloseTo(2 / 3.0, within(1e-12));
        assertThat(Agreement.exactMatch(selections)).isZero();
        assertThat(Agreement.exactMatch(List.of(new Agreement.Selection(Set.of("a"), Set.of("a")))))
                .isEqualTo(1.0);
        assertThat(Agreement.f1(List.of(new Agreement.Selection(Set.of(), Set.of()))))
                .as("nothing expected and nothing chosen")
                .isEqualTo(1.0);
    }

    @Test
    void kendallTauCountsConcordantAgainstDiscordantPairs() {
        assertThat(Agreement.kendallTau(List.of("a", "b", "c"), List.of("a", "b", "c")))
                .isEqualTo(1.0);
        assertThat(Agreement.kendallTau(List.of("a", "b", "c"), List.of("c", "b", "a")))
                .isEqualTo(-1.0);
        // (a,b) and (a,c) agree, (b,c) does not
        assertThat(Agreement.kendallTau(List.of("a", "b", "c"), List.of("a", "c", "b")))
                .isCloseTo(1 / 3.0, within(1e-12));
        assertThat(Agreement.kendallTau(List.of("a"), List.of("a", "b"))).isZero();
    }

    @Test
    void numbersMeasureTheDistanceOfTheEstimateAndWhetherTheLabelIsInRange() {
        var estimates = List.of(new Agreement.Estimate(5, 7, false), new Agreement.Estimate(2, 2, true));
        assertThat(Agreement.meanAbsoluteError(estimates)).isCloseTo(1.0, within(1e-12));
        assertThat(Agreement.withinRange(estimates)).isCloseTo(0.5, within(1e-12));
    }

    @ParameterizedTest
    @CsvSource(textBlock = """
            0, 0, 1.0
            5, 0, 0.0625
            0, 5, 0.0625
            1, 9, 0.021484375
            3, 3, 1.0
            2, 1, 1.0
            """)
    void mcNemarIsTheExactTwoSidedBinomialTail(int fixed, int broken, double p) {
        // 5-0: 2 · (1/2)^5; 1-9: 2 · (1 + 10) / 1024; 3-3 and 2-1: capped at 1
        assertThat(Agreement.mcNemarP(fixed, broken)).isCloseTo(p, within(1e-12));
    }
}
