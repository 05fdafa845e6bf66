package dev.arbor.models.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.models.ModelOperations;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.LocalModels;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TinyLlama;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The causal-lm engine (Jlama) on a tiny llama with random weights that the test writes: the real safetensors
 * loading, tokenizer and forward pass, options scored by the model's own log-probabilities, in process and through
 * a worker.
 */
class CausalLmEngineTest {
    private static final String STATE = "I was charged twice for my subscription and want one payment back.";
    private static final Scoring.Question TEAM = new Scoring.Question(
            "team",
            "choice",
            "Which team handles this?",
            List.of(
                    new Scoring.Option("billing", "billing", null),
                    new Scoring.Option("technical", "technical", null),
                    new Scoring.Option("sales", "sales", null)));
    private static final Scoring.Question URGENT = new Scoring.Question(
            "urgent",
            "noul",
            "Is this urgent?",
            List.of(new Scoring.Option("false", "no", null), new Scoring.Option("true", "yes", null)));

    @Test
    void optionsGetTheModelsOwnProbabilitiesSharpenedOrFlattenedByTheTemperature() throws Exception {
        Path folder = TempFolders.newFolder("arbor-llama-");
        TinyLlama.write(folder, 7);
        var engine = Engine.load("causal-lm", Map.of("path", folder.toString()));
        Scoring.Answer answer = engine.score(new Scoring.Request(STATE, List.of(), List.of(TEAM, URGENT)));
        for (Scoring.Question question : List.of(TEAM, URGENT)) {
            List<Double> probabilities = answer.probabilities().get(question.key());
            assertThat(probabilities)
                    .hasSize(question.options().size())
                    .allMatch(p -> p > 0 && p < 1)
                    .doesNotHaveDuplicates();
            assertThat(probabilities.stream().mapToDouble(Double::doubleValue).sum())
                    .isCloseTo(1, within(1e-9));
        }
        assertThat(answer.inputTokens()).isGreaterThan(STATE.length()); // one token per byte, and the question
        // not sampled (the same up to the rounding of parallel sums); each question on its own
        List<Double> again = engine.score(new Scoring.Request(STATE, List.of(), List.of(URGENT)))
                .probabilities()
                .get("urgent");
        for (int i = 0; i < again.size(); i++) {
            assertThat(again.get(i))
                    .isCloseTo(answer.probabilities().get("urgent").get(i), within(1e-5));
        }
        // another situation, other probabilities
        assertThat(engine.score(new Scoring.Request(
                                "The login page shows an error since this morning.", List.of(), List.of(TEAM)))
                        .probabilities()
                        .get("team"))
                .isNotEqualTo(answer.probabilities().get("team"));

        List<Double> flat = Engine.load("causal-lm", Map.of("path", folder.toString(), "temperature", "1000"))
                .score(new Scoring.Request(STATE, List.of(), List.of(TEAM)))
                .probabilities()
                .get("team");
        assertThat(flat).allSatisfy(p -> assertThat(p).isCloseTo(1.0 / 3, within(0.01)));
        List<Double> sharp = Engine.load("causal-lm", Map.of("path", folder.toString(), "temperature", "0.001"))
                .score(new Scoring.Request(STATE, List.of(), List.of(TEAM)))
                .probabilities()
                .get("team");
        int best = answer.probabilities()
                .get("team")
                .indexOf(answer.probabilities().get("team").stream()
                        .max(Double::compare)
                        .orElseThrow());
        assertThat(sharp.get(best)).isGreaterThan(0.99);

        // a situation longer than the model's context is cut to fit, not refused
        Scoring.Answer cut = engine.score(new Scoring.Request("x".repeat(5000), List.of(), List.of(URGENT)));
        assertThat(cut.inputTokens()).isLessThanOrEqualTo(512);
    }

    /**
     * A question's options share one pass over the beginning: each must still be scored as if it came alone, and as
     * if the text had been split anywhere else (a long option first, whose positions the next ones overwrite; a
     * beginning longer than one pass of the model).
     */
    @Test
    void optionsAfterOneSharedBeginningAreScoredAsIfEachCameAlone() throws Exception {
        Path folder = TempFolders.newFolder("arbor-llama-");
        TinyLlama.write(folder, 7);
        var engine = (CausalLmEngine) Engine.load("causal-lm", Map.of("path", folder.toString()));
        var random = new Random(3);
        int[] beginning = random.ints(300, 3, 259).toArray();
        int[][] options = {
            random.ints(40, 3, 259).toArray(),
            random.ints(2, 3, 259).toArray(),
            random.ints(7, 3, 259).toArray(),
            random.ints(1, 3, 259).toArray()
        };

        double[] together = engine.meanLogProbabilities(beginning, options);
        for (int i = 0; i < options.length; i++) {
            int[] option = options[i];
            assertThat(together[i])
                    .isCloseTo(engine.meanLogProbabilities(beginning, new int[][] {option})[0], within(1e-4));
            // the same option's tokens, each read after a beginning that already holds the ones before it
            double mean = 0;
            for (int k = 0; k < option.length; k++) {
                int[] longer = IntStream.concat(Arrays.stream(beginning), Arrays.stream(option, 0, k))
                        .toArray();
                mean += engine.meanLogProbabilities(longer, new int[][] {{option[k]}})[0] / option.length;
            }
            assertThat(together[i]).isCloseTo(mean, within(1e-4));
        }
        assertThat(engine.meanLogProbabilities(beginning, new int[][] {{}})[0]).isEqualTo(Double.NEGATIVE_INFINITY);
    }

    @Test
    void anAddedModelAnswersDecisionsThroughItsWorker() throws Exception {
        Path folder = TempFolders.newFolder("arbor-llama-");
        TinyLlama.write(folder, 11);
        Path incomplete = TempFolders.newFolder("arbor-llama-");
        TinyLlama.write(incomplete, 11);
        Files.delete(incomplete.resolve("model.safetensors"));
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            HttpReply added = LocalModels.add(http, folder, "Tiny llama", "causal-lm");
            assertThat(added.status()).as(added.body()).isEqualTo(201);
            assertThat(added.json().path("engine").asText()).isEqualTo("causal-lm");
            JsonNode decision = http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"tiny-llama\", \"state\": \"" + STATE
                                    + "\", \"questions\": {\"team\": {\"type\": \"choice\", \"criteria\": [\"billing\", \"technical\","
                                    + " \"sales\"]}, \"urgent\": {\"type\": \"noul\"}}}")
                    .json();
            assertThat(decision.path("status").asText()).as(decision.toString()).isEqualTo("completed");
            assertThat(decision.at("/answers/team/decision").asText()).isIn("billing", "technical", "sales");
            assertThat(decision.at("/answers/urgent/decision").asText()).isIn("yes", "no");

            JsonNode refused = LocalModels.add(http, incomplete, "Broken llama", "causal-lm")
                    .assertError(400, "invalid_field", "model_uri");
            assertThat(refused.path("message").asText()).contains("model.safetensors");
            assertThat(ModelOperations.addRequest(folder.toString(), "Tiny", "local")
                            .path("engine")
                            .asText())
                    .isEqualTo("causal-lm");
        }
    }
}
