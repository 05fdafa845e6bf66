package dev.arbor.models.engines;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.Models;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.json.Json;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How well the bundled embedding model decides, per question type, on a small labelled set we wrote
 * ({@code calibration/embedding-labelled.jsonl}), and which temperature fits its topics best. The model is
 * deterministic, so these figures are exact and the manual quotes them (docs/models-and-deployments.md); the assertions hold the honest floor (topics
 * well above chance), not a wish.
 */
class EmbeddingCalibrationTest {
    private static final Map<String, Scoring.Question> QUESTIONS = Map.of(
            "team",
                    new Scoring.Question(
                            "team",
                            "choice",
                            "Which team should handle this message?",
                            List.of(
                                    new Scoring.Option(
                                            "billing", "billing", "invoices, charges, refunds and payment methods"),
                                    new Scoring.Option(
                                            "technical", "technical", "bugs, errors, crashes, outages and the API"),
                                    new Scoring.Option(
                                            "sales", "sales", "pricing, quotes, upgrades, demos and new purchases"),
                                    new Scoring.Option(
                                            "account", "account", "logins, passwords, users and permissions"))),
            "refund",
                    new Scoring.Question(
                            "refund",
                            "noul",
                            "Is the customer asking for money back?",
                            List.of(new Scoring.Option("false", "no", null), new Scoring.Option("true", "yes", null))),
            "urgency",
                    new Scoring.Question(
                            "urgency",
                            "score",
                            "How urgent is this message?",
                            List.of(
                                    new Scoring.Option("0", "Can wait a week", null),
                                    new Scoring.Option("1", "Answer within two days", null),
                                    new Scoring.Option("2", "Answer today", null),
                                    new Scoring.Option("3", "Drop everything", null))));
    private static final double ENGINE_TEMPERATURE =
            EmbeddingEngine.DEFAULT_TEMPERATURES.get(Scoring.Primitive.CHOICE.wire());

    @TempDir
    Path data;

    private record Scored(String type, int expected, List<Double> probabilities) {}

    @Test
    void accuracyPerTypeAndTheBestTemperature() throws IOException {
        var scored = new ArrayList<Scored>();
        try (var runtime =
                new ModelRuntime(new Models(false), data, ModelRuntime.Settings.DEFAULT, new SimpleMeterRegistry())) {
            runtime.start();
            for (JsonNode example : examples()) {
                Scoring.Question question =
                        QUESTIONS.get(example.path("question").asText());
                var answer = runtime.score(
                        "minilm-decider",
                        new Scoring.Request(example.path("state").asText(), List.of(), List.of(question)));
                int expected = indexOf(question, example.path("expected").asText());
                scored.add(new Scored(
                        question.type(), expected, answer.probabilities().get(question.key())));
            }
        }
        var accuracy = new LinkedHashMap<String, Double>();
        for (String type : List.of("choice", "noul", "score")) {
            List<Scored> ofType =
                    scored.stream().filter(s -> s.type().equals(type)).toList();
            accuracy.put(
                    type,
                    ofType.stream()
                                    .filter(s -> argmax(s.probabilities()) == s.expected())
                                    .count()
                            / (double) ofType.size());
        }
        double best = bestTemperature(
                scored.stream().filter(s -> s.type().equals("choice")).toList());
        System.out.printf(
                "embedding calibration: accuracy %s, best temperature for topics %.3f (engine uses %.3f)%n",
                accuracy, best, ENGINE_TEMPERATURE);

        assertThat(accuracy.get("choice")).as("topic routing, chance is 0.25").isGreaterThanOrEqualTo(0.75);
        // yes/no answers 4/10 here with bare sides (8/10 with sides written from the question, which answered
        // worse than chance on 1,541 public review sentences): ZeroShotCalibrationTest holds yes/no to its floors
        // on public data. Topics here are all right, so their log loss falls all the way down the grid: the
        // temperature is fitted on public data (bench/studio-zeroshot), and this only checks it is not the lower one.
        assertThat(best)
                .as("our topics are all right: their lowest log loss is at or under the engine's temperature")
                .isLessThanOrEqualTo(ENGINE_TEMPERATURE);
    }

    /** The temperature with the lowest mean log loss, on a log grid from 0.002 to 0.2. */
    private static double bestTemperature(List<Scored> scored) {
        double best = Double.NaN;
        double bestLoss = Double.POSITIVE_INFINITY;
        for (int step = 0; step <= 60; step++) {
            double temperature = 0.002 * Math.pow(100, step / 60.0);
            double loss = 0;
            for (Scored s : scored) {
                loss -= Math.log(Math.max(
                        1e-12, retempered(s.probabilities(), temperature).get(s.expected())));
            }
            if (loss < bestLoss) {
                bestLoss = loss;
                best = temperature;
            }
        }
        return best;
    }

    /** Probabilities made at the engine's choice temperature, as they would be at another: p^(T0/T), normalised. */
    private static List<Double> retempered(List<Double> probabilities, double temperature) {
        double[] logits = probabilities.stream()
                .mapToDouble(p -> Math.log(Math.max(p, 1e-300)) * ENGINE_TEMPERATURE)
                .toArray();
        return EmbeddingEngine.softmax(logits, temperature);
    }

    private static int argmax(List<Double> values) {
        int best = 0;
        for (int i = 1; i < values.size(); i++) {
            if (values.get(i) > values.get(best)) {
                best = i;
            }
        }
        return best;
    }

    private static int indexOf(Scoring.Question question, String key) {
        for (int i = 0; i < question.options().size(); i++) {
            if (question.options().get(i).key().equals(key)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no option " + key);
    }

    private static List<JsonNode> examples() throws IOException {
        try (InputStream in =
                EmbeddingCalibrationTest.class.getResourceAsStream("/calibration/embedding-labelled.jsonl")) {
            var examples = new ArrayList<JsonNode>();
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    examples.add(Json.read(line));
                }
            }
            return examples;
        }
    }
}
