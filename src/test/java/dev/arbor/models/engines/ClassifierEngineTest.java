package dev.arbor.models.engines;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.LocalModels;
import dev.arbor.testing.TempFolders;
import dev.arbor.testing.TestServer;
import dev.arbor.testing.TinyClassifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The onnx-classifier engine on generated ONNX graphs with random weights: the real tokenizer, pair encoding,
 * batching with padding and the ONNX Runtime session run, checked against the same arithmetic done in plain Java.
 */
class ClassifierEngineTest {
    private static final String STATE = "I was charged twice for my subscription and want one payment back.";
    private static final Scoring.Question TEAM = new Scoring.Question(
            "team",
            "choice",
            "Which team handles this?",
            List.of(
                    new Scoring.Option("billing", "billing", "charges and refunds"),
                    new Scoring.Option("technical", "technical", null),
                    new Scoring.Option("sales", "sales", "quotes and plans for a much larger company")));
    private static final Scoring.Question URGENT = new Scoring.Question(
            "urgent",
            "noul",
            "Is this urgent?",
            List.of(new Scoring.Option("false", "no", null), new Scoring.Option("true", "yes", null)));

    private static HuggingFaceTokenizer tokenizer;

    @BeforeAll
    static void tokenizer() throws Exception {
        try (var json = ClassifierEngineTest.class.getResourceAsStream(EmbeddingEngine.BUNDLED_TOKENIZER)) {
            tokenizer = HuggingFaceTokenizer.newInstance(json, Map.of("truncation", "true", "padding", "false"));
        }
    }

    @AfterAll
    static void close() {
        tokenizer.close();
    }

    @Test
    void anInferenceModelScoresEachOptionAsAHypothesisByItsEntailment() throws Exception {
        Path folder = TempFolders.newFolder("arbor-nli-");
        TinyClassifier model = TinyClassifier.write(folder, List.of("contradiction", "neutral", "entailment"), 7);
        var engine = (ClassifierEngine) Engine.load("onnx-classifier", Map.of("path", folder.toString()));
        assertThat(engine.head()).isEqualTo(ClassifierEngine.Head.ENTAILMENT);

        Scoring.Answer answer = engine.score(new Scoring.Request(STATE, List.of(), List.of(TEAM, URGENT)));
        for (Scoring.Question question : List.of(TEAM, URGENT)) {
            double[] entailment = new double[question.options().size()];
            for (int i = 0; i < entailment.length; i++) {
                Encoding pair = tokenizer.encode(
                        STATE,
                        ClassifierEngine.hypothesis(question, question.options().get(i)));
                entailment[i] = model.logits(pair.getIds(), pair.getTypeIds(), pair.getAttentionMask())[2];
            }
            assertClose(answer.probabilities().get(question.key()), EmbeddingEngine.softmax(entailment, 1));
        }
        assertThat(answer.probabilities().get("team")).doesNotHaveDuplicates();
        assertThat(engine.score(new Scoring.Request(STATE, List.of(), List.of(TEAM)))
                        .probabilities()
                        .get("team"))
                .isEqualTo(answer.probabilities().get("team"));
    }

    @Test
    void aCrossEncoderScoresEachOptionByItsOneLogit() throws Exception {
        Path folder = TempFolders.newFolder("arbor-cross-");
        TinyClassifier model = TinyClassifier.write(folder, List.of(), 11);
        var engine = (ClassifierEngine)
                Engine.load("onnx-classifier", Map.of("path", folder.toString(), "temperature", "2"));
        assertThat(engine.head()).isEqualTo(ClassifierEngine.Head.RELEVANCE);
        double[] relevance = new double[3];
        for (int i = 0; i < 3; i++) {
            Encoding pair = tokenizer.encode(
                    STATE, ClassifierEngine.hypothesis(TEAM, TEAM.options().get(i)));
            relevance[i] = model.logits(pair.getIds(), pair.getTypeIds(), pair.getAttentionMask())[0];
        }
        assertClose(
                engine.score(new Scoring.Request(STATE, List.of(), List.of(TEAM)))
                        .probabilities()
                        .get("team"),
                EmbeddingEngine.softmax(relevance, 2));
    }

    @Test
    void aLabelClassifierAnswersQuestionsWhoseOptionsAreItsLabels() throws Exception {
        Path folder = TempFolders.newFolder("arbor-labels-");
        TinyClassifier model = TinyClassifier.write(folder, List.of("Sales", "Billing", "Technical"), 3);
        var engine = (ClassifierEngine) Engine.load("onnx-classifier", Map.of("path", folder.toString()));
        assertThat(engine.head()).isEqualTo(ClassifierEngine.Head.LABELS);
        Encoding situation = tokenizer.encode(STATE);
        double[] logits = model.logits(situation.getIds(), situation.getTypeIds(), situation.getAttentionMask());
        assertClose(
                engine.score(new Scoring.Request(STATE, List.of(), List.of(TEAM)))
                        .probabilities()
                        .get("team"),
                EmbeddingEngine.softmax(new double[] {logits[1], logits[2], logits[0]}, 1));
        assertThatThrownBy(() -> engine.score(new Scoring.Request(STATE, List.of(), List.of(URGENT))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a label");
    }

    private static void assertClose(List<Double> got, List<Double> expected) {
        assertThat(got).hasSize(expected.size());
        for (int i = 0; i < expected.size(); i++) {
            assertThat(got.get(i)).isCloseTo(expected.get(i), within(1e-4));
        }
    }

    @Test
    void anAddedClassifierAnswersDecisionsThroughItsWorker() throws Exception {
        Path folder = TempFolders.newFolder("arbor-nli-");
        TinyClassifier.write(folder, List.of("contradiction", "neutral", "entailment"), 5);
        Path labels = TempFolders.newFolder("arbor-labels-");
        TinyClassifier.write(labels, List.of("billing", "technical"), 5);
        Path incomplete = TempFolders.newFolder("arbor-nli-");
        TinyClassifier.write(incomplete, List.of("entailment", "other"), 5);
        Files.delete(incomplete.resolve("config.json"));
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            HttpReply added = LocalModels.add(http, folder, "Tiny NLI", "onnx-classifier");
            assertThat(added.status()).as(added.body()).isEqualTo(201);
            assertThat(added.json().path("context_tokens").asInt()).isEqualTo(512);
            JsonNode decision = http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"tiny-nli\", \"state\": \"" + STATE
                                    + "\", \"questions\": {\"team\": {\"type\": \"choice\", \"criteria\": [\"billing\", \"technical\","
                                    + " \"sales\"]}}}")
                    .json();
            assertThat(decision.path("status").asText()).as(decision.toString()).isEqualTo("completed");
            assertThat(decision.at("/answers/team/decision").asText()).isIn("billing", "technical", "sales");

            LocalModels.add(http, labels, "Tiny labels", "onnx-classifier").json();
            http.post(
                            "/v1/studio/decisions",
                            "{\"model\": \"tiny-labels\", \"state\": \"" + STATE
                                    + "\", \"questions\": {\"urgent\": {\"type\": \"noul\"}}}")
                    .assertError(400, "model_rejected_input", null);

            JsonNode refused = LocalModels.add(http, incomplete, "Broken", "onnx-classifier")
                    .assertError(400, "invalid_field", "model_uri");
            assertThat(refused.path("message").asText()).contains("config.json");
            LocalModels.add(http, folder, "Tiny LM", "gpt").assertError(400, "invalid_field", "engine");
        }
    }
}
