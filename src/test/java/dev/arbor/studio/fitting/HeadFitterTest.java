package dev.arbor.studio.fitting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.heads.Head;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeadFitterTest {
    private static final Instant NOW = Instant.parse("2026-11-24T12:00:00Z");
    private static final int DIMENSION = 16;

    /** Unit vectors near one of two (or more) centres; {@code noise} spreads them. */
    private static List<HeadFitter.Labelled> clusters(List<String> labels, int perClass, double noise, long seed) {
        var random = new Random(seed);
        var items = new ArrayList<HeadFitter.Labelled>();
        for (int i = 0; i < perClass; i++) {
            for (int c = 0; c < labels.size(); c++) {
                float[] v = new float[DIMENSION];
                for (int j = 0; j < DIMENSION; j++) {
                    v[j] = (float) ((j == c ? 1 : 0) + noise * random.nextGaussian());
                }
                items.add(new HeadFitter.Labelled(v, Json.mapper().valueToTree(labels.get(c))));
            }
        }
        return items;
    }

    private static Head fitted(QuestionType type, List<String> options, List<HeadFitter.Labelled> items) {
        var outcome = HeadFitter.fit(type, options, items, "minilm", NOW, () -> false);
        assertThat(outcome).isInstanceOf(HeadFitter.Fitted.class);
        return ((HeadFitter.Fitted) outcome).head();
    }

    private static double accuracy(Head head, List<HeadFitter.Labelled> items, List<String> options) {
        int right = 0;
        for (var item : items) {
            var p = head.probabilities(item.vector());
            String best = p.entrySet().stream()
                    .max(java.util.Map.Entry.comparingByValue())
                    .orElseThrow()
                    .getKey();
            right += options.get(options.indexOf(best)).equals(item.label().asText()) ? 1 : 0;
        }
        return (double) right / items.size();
    }

    @Test
    void separableClassesAreLearntPerfectly() {
        var options = List.of("billing", "outage", "other");
        Head head = fitted(QuestionType.CHOICE, options, clusters(options, 20, 0.05, 1));

        assertThat(accuracy(head, clusters(options, 50, 0.05, 2), options)).isEqualTo(1.0);
        assertThat(head.facts().cvAccuracy()).isEqualTo(1.0);
        assertThat(head.facts().counts()).containsEntry("billing", 20).containsEntry("other", 20);
        assertThat(head.facts().labels()).isEqualTo(60);
        assertThat(head.facts().dimension()).isEqualTo(DIMENSION);
    }

    @Test
    void noisyClassesGetCalibratedProbabilities() {
        // centres sqrt(2) apart, noise 0.5 per dimension: the best possible accuracy is about 0.92
        var options = List.of("no", "yes");
        var train = clusters(options, 200, 0.5, 3);
        Head head = fitted(QuestionType.CHOICE, options, train);
        var test = clusters(options, 2000, 0.5, 4);

        double accuracy = accuracy(head, test, options);
        double meanConfidence = test.stream()
                .mapToDouble(item -> head.probabilities(item.vector()).values().stream()
                        .mapToDouble(Double::doubleValue)
                        .max()
                        .orElseThrow())
                .average()
                .orElseThrow();
        assertThat(accuracy).isBetween(0.86, 0.93);
        assertThat(meanConfidence).isCloseTo(accuracy, within(0.05)); // calibrated: as sure as it is right
        assertThat(head.facts().cvAccuracy()).isCloseTo(accuracy, within(0.08));
    }

    @Test
    void yesNoLabelsTrainTheYesNoKeys() {
        var items = clusters(List.of("no", "yes"), 10, 0.05, 5);
        Head head = fitted(QuestionType.NOUL, List.of("false", "true"), items);

        float[] yes = items.get(1).vector();
        assertThat(head.probabilities(yes).get("true")).isGreaterThan(0.9);
        assertThat(head.facts().counts()).containsEntry("false", 10).containsEntry("true", 10);
    }

    @Test
    void oneClassOnlyIsRefusedWithItsCounts() {
        var items = clusters(List.of("yes"), 30, 0.1, 6);

        var outcome = HeadFitter.fit(QuestionType.NOUL, List.of("false", "true"), items, "m", NOW, () -> false);

        assertThat(outcome).isInstanceOfSatisfying(HeadFitter.Refused.class, refused -> {
            assertThat(refused.counts()).containsEntry("true", 30).containsEntry("false", 0);
            assertThat(refused.why()).startsWith("only one class has labels");
        });
    }

    @Test
    void tooFewLabelsOfAClassAreRefused() {
        var items = new ArrayList<>(clusters(List.of("a", "b"), 8, 0.1, 7));
        items.addAll(clusters(List.of("c"), 2, 0.1, 8));

        var outcome = HeadFitter.fit(QuestionType.CHOICE, List.of("a", "b", "c"), items, "m", NOW, () -> false);

        assertThat(outcome).isInstanceOfSatisfying(HeadFitter.Refused.class, refused -> {
            assertThat(refused.counts()).containsEntry("a", 8).containsEntry("c", 2);
            assertThat(refused.why()).startsWith("too few labels");
        });
    }

    @Test
    void multiHasOneLayerPerOption() {
        var random = new Random(9);
        var items = new ArrayList<HeadFitter.Labelled>();
        for (int i = 0; i < 40; i++) {
            boolean a = random.nextBoolean();
            boolean b = random.nextBoolean();
            float[] v = new float[DIMENSION];
            v[0] = a ? 1 : 0;
            v[1] = b ? 1 : 0;
            v[2] = (float) random.nextGaussian() * 0.05f;
            var label = Json.mapper().createArrayNode();
            if (a) {
                label.add("a");
            }
            if (b) {
                label.add("b");
            }
            items.add(new HeadFitter.Labelled(v, label));
        }
        Head head = fitted(QuestionType.MULTI, List.of("a", "b"), items);

        float[] onlyB = new float[DIMENSION];
        onlyB[1] = 1;
        assertThat(head.parts()).hasSize(2);
        assertThat(head.probabilities(onlyB).get("a")).isLessThan(0.2);
        assertThat(head.probabilities(onlyB).get("b")).isGreaterThan(0.8);
    }

    @Test
    void rankLearnsFromTheFirstOptionOfEachLabel() {
        var items = new ArrayList<HeadFitter.Labelled>();
        for (var item : clusters(List.of("x", "y"), 10, 0.05, 10)) {
            String first = item.label().asText();
            JsonNode ranking = Json.mapper().valueToTree(List.of(first, first.equals("x") ? "y" : "x"));
            items.add(new HeadFitter.Labelled(item.vector(), ranking));
        }
        Head head = fitted(QuestionType.RANK, List.of("x", "y"), items);

        assertThat(head.probabilities(items.getFirst().vector()).get("x")).isGreaterThan(0.9);
    }

    @Test
    void numberQuestionsKeepZeroShot() {
        var outcome = HeadFitter.fit(
                QuestionType.NUMBER,
                List.of("1", "2"),
                clusters(List.of("1", "2"), 10, 0.1, 11),
                "m",
                NOW,
                () -> false);

        assertThat(outcome).isInstanceOf(HeadFitter.Refused.class);
    }

    @Test
    void theSameLabelsFitTheSameHead() {
        var options = List.of("no", "yes");
        var items = clusters(options, 30, 0.6, 12);

        assertThat(fitted(QuestionType.CHOICE, options, items)).isEqualTo(fitted(QuestionType.CHOICE, options, items));
    }

    @Test
    void aStoredHeadReadsBackTheSame() {
        var options = List.of("no", "yes");
        Head head = fitted(QuestionType.CHOICE, options, clusters(options, 30, 0.6, 13));

        Head read = Head.read(Json.read(Json.writeString(head.json())));

        assertThat(read).isEqualTo(head);
        assertThat(head.json().path("parts").get(0).path("weights").asText())
                .hasSize(4 * ((2 * (DIMENSION + 1) * 4 + 2) / 3)); // little-endian float32, base64
    }

    @Test
    void aStoppedFitEndsWithoutAHead() {
        var options = List.of("no", "yes");

        assertThatThrownBy(() -> HeadFitter.fit(
                        QuestionType.CHOICE, options, clusters(options, 30, 0.6, 14), "m", NOW, () -> true))
                .isInstanceOf(Logistic.Stopped.class);
    }
}
