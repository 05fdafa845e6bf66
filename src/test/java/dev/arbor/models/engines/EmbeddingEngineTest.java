package dev.arbor.models.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.arbor.testing.BundledModels;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The bundled MiniLM model, for real, in its own worker process: easy topical cases must come out right. */
class EmbeddingEngineTest {
    @RegisterExtension
    static final BundledModels MODELS = new BundledModels();

    private static final Scoring.Question TEAM = new Scoring.Question(
            "team",
            "choice",
            "Which team should handle this message?",
            List.of(
                    new Scoring.Option("billing", "billing", "invoices, charges, refunds and payments"),
                    new Scoring.Option("technical", "technical", "bugs, errors, crashes and outages"),
                    new Scoring.Option("sales", "sales", "buying, upgrades, quotes and demos")));

    private static String winner(String state) {
        Scoring.Answer answer =
                MODELS.runtime().score("minilm-decider", new Scoring.Request(state, List.of(), List.of(TEAM)));
        List<Double> p = answer.probabilities().get("team");
        assertThat(p.stream().mapToDouble(Double::doubleValue).sum()).isCloseTo(1.0, within(1e-6));
        int best = 0;
        for (int i = 1; i < p.size(); i++) {
            if (p.get(i) > p.get(best)) {
                best = i;
            }
        }
        return TEAM.options().get(best).key();
    }

    @Test
    void easyTopicalCasesComeOutRight() {
        assertThat(winner("I was charged twice on my credit card for the March invoice, please refund me."))
                .isEqualTo("billing");
        assertThat(winner("The app crashes with an error every time I upload a file."))
                .isEqualTo("technical");
        assertThat(winner("We would like a quote for 200 seats and a demo for our team next week."))
                .isEqualTo("sales");
    }

    @Test
    void aCpuWorkersLogHoldsNoWarnings() {
        winner("My card was charged twice for the same invoice.");

        // a CUDA runtime without a driver on the machine once made every CPU worker's log open with two warnings
        assertThat(MODELS.runtime().logs("minilm-decider", 200))
                .isNotEmpty()
                .noneMatch(line -> line.contains(" WARN ") || line.startsWith("WARNING"));
    }

    @Test
    void theSameInputGivesTheSameAnswer() {
        var request = new Scoring.Request("Refund my double charge", List.of(), List.of(TEAM));
        assertThat(MODELS.runtime().score("minilm-decider", request))
                .isEqualTo(MODELS.runtime().score("minilm-decider", request));
    }

    @Test
    void yesNoSidesWithoutDescriptionsStayBareForTheEmbeddingAndGetWrittenOnesAsAHypothesis() {
        var question = new Scoring.Question(
                "q",
                "noul",
                "Is it urgent?",
                List.of(new Scoring.Option("false", "no", null), new Scoring.Option("true", "yes", null)));
        assertThat(EmbeddingEngine.optionText(question, question.options().get(1)))
                .isEqualTo("Is it urgent? yes");
        assertThat(ClassifierEngine.hypothesis(question, question.options().get(1)))
                .isEqualTo("Is it urgent? yes: yes, this is clearly the case");
        assertThat(EmbeddingEngine.softmax(new double[] {0.5, 0.5}, 0.02)).containsExactly(0.5, 0.5);
    }
}
