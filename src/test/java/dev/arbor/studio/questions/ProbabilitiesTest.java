package dev.arbor.studio.questions;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProbabilitiesTest {
    @Test
    void brokenProbabilitiesAreCleanedAndMissingOnesAreUniform() {
        assertThat(Probabilities.clean(List.of(Double.NaN, -1.0, 3.0), 3)).containsExactly(0.0, 0.0, 1.0);
        assertThat(Probabilities.clean(List.of(0.0, 0.0), 2)).containsExactly(0.5, 0.5);
        assertThat(Probabilities.clean(null, 4)).containsExactly(0.25, 0.25, 0.25, 0.25);
    }
}
