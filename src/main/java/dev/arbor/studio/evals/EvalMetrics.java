package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.evals.metrics.Agreement;
import dev.arbor.studio.evals.metrics.Calibration;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.Rounding;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * An eval's results from its items: per target and question the metrics, and per model the comparison of each
 * version with the one before it. When the data set has both splits, the calibration split fits the temperature and
 * the threshold and the test split is measured; otherwise all items do both.
 */
final class EvalMetrics {
    private EvalMetrics() {}

    /**
     * One item's answer to one question, read once from what the runner stored (see {@link EvalRunner#answers}),
     * with the item's split and position.
     *
     * @param raw the raw probabilities by option (multi: by option, that it applies)
     * @param label the label in canonical form, when the item had a fitting one
     * @param correct whether the answer matched the label, when it had one
     * @param unfit whether the item's label did not fit the question
     */
    private record Entry(
            int position,
            Optional<String> split,
            JsonNode expected,
            Answer answer,
            Map<String, Double> raw,
            double temperature,
            double actThreshold,
            JsonNode label,
            Optional<Boolean> correct,
            boolean unfit) {
        static Entry of(int position, Optional<String> split, JsonNode expected, JsonNode stored) {
            var raw = new LinkedHashMap<String, Double>();
            stored.path("raw")
                    .properties()
                    .forEach(e -> raw.put(e.getKey(), e.getValue().asDouble()));
            JsonNode correct = stored.path("correct");
            return new Entry(
                    position,
                    split,
                    expected,
                    AnswerCodec.read(stored.get("answer")),
                    raw,
                    stored.path("temperature").asDouble(1.0),
                    stored.path("act_threshold").asDouble(),
                    stored.path("label"),
                    correct.isBoolean() ? Optional.of(correct.booleanValue()) : Optional.empty(),
                    stored.has("unfit"));
        }

        boolean labelled() {
            return correct.isPresent();
        }

        boolean right() {
            return correct.orElse(false);
        }
    }

    /**
     * @param targets the eval's targets as it shows them, in order
     * @param questions the questions measured, in order
     */
    static ObjectNode of(List<ObjectNode> targets, List<String> questions, List<EvalStore.Item> items, double budget) {
        ObjectNode results = Json.object();
        var byTarget = new LinkedHashMap<Integer, List<EvalStore.Item>>();
        for (int t = 0; t < targets.size(); t++) {
            byTarget.put(t, new ArrayList<>());
        }
        items.forEach(item ->
                byTarget.computeIfAbsent(item.target(), k -> new ArrayList<>()).add(item));
        var shown = results.putArray("targets");
        var models = new ArrayList<Optional<String>>();
        for (var entry : byTarget.entrySet()) {
            List<EvalStore.Item> ofTarget = entry.getValue();
            ObjectNode target = targets.get(entry.getKey()).deepCopy();
            Optional<String> model = ofTarget.stream()
                    .flatMap(item -> item.answers().stream())
                    .map(answers -> answers.path("model").asText(""))
                    .filter(m -> !m.isEmpty())
                    .findFirst();
            models.add(model);
            target.put("model", model.orElse(target.path("model").asText(null)));
            target.put("items", ofTarget.size());
            target.put(
                    "failed",
                    ofTarget.stream().filter(i -> i.answers().isEmpty()).count());
            boolean split = ofTarget.stream().anyMatch(i -> i.split().equals(Optional.of("calibration")))
                    && ofTarget.stream().anyMatch(i -> i.split().equals(Optional.of("test")));
            target.put("measured_on", split ? "test" : "all");
            target.put("fitted_on", split ? "calibration" : "all");
            ObjectNode perQuestion = target.putObject("questions");
            for (String question : questions) {
                List<Entry> entries = entries(ofTarget, question).stream()
                        .filter(e -> !e.expected().isMissingNode())
                        .toList();
                if (entries.isEmpty()) {
                    continue; // no item has a label for it: nothing to measure
                }
                List<Entry> measured = split
                        ? entries.stream()
                                .filter(e -> e.split().equals(Optional.of("test")))
                                .toList()
                        : entries;
                List<Entry> fit = split
                        ? entries.stream()
                                .filter(e -> e.split().equals(Optional.of("calibration")))
                                .toList()
                        : entries;
                perQuestion.set(question, question(measured, fit, budget));
            }
            shown.add(target);
        }
        results.set("comparisons", comparisons(targets, models, byTarget, questions));
        return results;
    }

    private static List<Entry> entries(List<EvalStore.Item> items, String question) {
        var entries = new ArrayList<Entry>();
        for (EvalStore.Item item : items) {
            item.answers()
                    .map(answers -> answers.path("questions").path(question))
                    .filter(JsonNode::isObject)
                    .ifPresent(stored -> entries.add(Entry.of(
                            item.position(), item.split(), item.expected().path(question), stored)));
        }
        return entries;
    }

    private static ObjectNode question(List<Entry> measured, List<Entry> fit, double budget) {
        ObjectNode json = Json.object();
        String type =
                (measured.isEmpty() ? fit : measured).getFirst().answer().type().wire();
        json.put("type", type);
        List<Entry> labelled = measured.stream().filter(Entry::labelled).toList();
        int correct = (int) labelled.stream().filter(Entry::right).count();
        json.put("n", labelled.size());
        json.put("correct", correct);
        json.put("unfit_labels", measured.stream().filter(Entry::unfit).count());
        json.set("accuracy", ratio(correct, labelled.size()));
        if (!type.equals("multi")) {
            calibration(json, labelled, fit.stream().filter(Entry::labelled).toList(), budget);
        }
        switch (type) {
            case "choice", "noul" -> json.set("confusion", confusion(labelled));
            case "score" -> {
                var levels = labelled.stream().map(EvalMetrics::levels).toList();
                json.set("within_one", number(Agreement.withinOne(levels), levels.isEmpty()));
                json.set("mae_levels", number(Agreement.meanLevelError(levels), levels.isEmpty()));
            }
            case "multi" -> {
                var selections = labelled.stream().map(EvalMetrics::selection).toList();
                json.set("f1", number(Agreement.f1(selections), selections.isEmpty()));
                json.set("exact_match", number(Agreement.exactMatch(selections), selections.isEmpty()));
            }
            case "rank" -> {
                var taus = new ArrayList<Double>();
                for (Entry e : labelled) {
                    if (e.expected().isArray() && e.expected().size() >= 2) {
                        var expected = new ArrayList<String>();
                        e.expected().forEach(o -> expected.add(o.asText()));
                        List<String> ranking = e.answer() instanceof Answer.Rank rank ? rank.ranking() : List.of();
                        taus.add(Agreement.kendallTau(expected, ranking));
                    }
                }
                json.put("ranked", taus.size());
                json.set(
                        "kendall_tau",
                        number(taus.stream().mapToDouble(d -> d).average().orElse(0), taus.isEmpty()));
            }
            case "number" -> {
                var estimates = labelled.stream()
                        .map(e -> new Agreement.Estimate(
                                e.label().asDouble(),
                                e.answer() instanceof Answer.Estimate estimate ? estimate.estimate() : 0,
                                e.right()))
                        .toList();
                json.set("mae", number(Agreement.meanAbsoluteError(estimates), estimates.isEmpty()));
                json.set("within_range", number(Agreement.withinRange(estimates), estimates.isEmpty()));
            }
            default -> {} // no measures of its own
        }
        return json;
    }

    /** Brier, log loss, ECE, confident mistakes, and the temperature and threshold fitted on {@code fit}. */
    private static void calibration(ObjectNode json, List<Entry> measured, List<Entry> fit, double budget) {
        List<Calibration.Scored> scored = scored(measured);
        List<Calibration.Outcome> outcomes = Calibration.outcomes(scored);
        boolean none = scored.isEmpty();
        json.set("brier", number(Calibration.brier(scored), none));
        json.set("log_loss", number(Calibration.logLoss(scored), none));
        json.set("ece", number(Calibration.ece(outcomes), none));
        ArrayNode reliability = json.putArray("reliability");
        for (Calibration.Bin bin : Calibration.reliability(outcomes)) {
            ObjectNode point = reliability.addObject();
            point.put("from", bin.from());
            point.put("to", bin.to());
            point.put("n", bin.n());
            point.set("confidence", number(bin.confidence(), bin.n() == 0));
            point.set("accuracy", number(bin.accuracy(), bin.n() == 0));
        }
        json.put("confident_mistakes", Calibration.confidentMistakes(outcomes));
        List<Calibration.Scored> fitScored = scored(fit);
        double current = fit.isEmpty()
                ? measured.isEmpty() ? 1.0 : measured.getFirst().temperature()
                : fit.getFirst().temperature();
        double currentAct = (fit.isEmpty() ? measured : fit)
                .stream().findFirst().map(Entry::actThreshold).orElse(0.0);
        ObjectNode temperature = json.putObject("temperature");
        temperature.put("current", current);
        temperature.put("n", fitScored.size());
        ObjectNode threshold = json.putObject("act_threshold");
        threshold.put("current", currentAct);
        threshold.put("error_budget", budget);
        if (fitScored.isEmpty()) {
            temperature.putNull("fitted");
            threshold.putNull("suggested");
            return;
        }
        Calibration.Fit fitted = Calibration.fitTemperature(fitScored, current);
        temperature.put("fitted", Rounding.round(fitted.fitted(), 4));
        temperature.put("log_loss_current", Rounding.round(fitted.logLossCurrent(), 4));
        temperature.put("log_loss_fitted", Rounding.round(fitted.logLossFitted(), 4));
        Optional<Calibration.Threshold> suggested =
                Calibration.suggestThreshold(Calibration.outcomesAt(fitScored, fitted.fitted()), budget);
        if (suggested.isEmpty()) {
            threshold.putNull("suggested");
            return;
        }
        threshold.put("suggested", Rounding.round(suggested.get().threshold(), 4));
        threshold.put("coverage", Rounding.round(suggested.get().coverage(), 4));
        threshold.put("error", Rounding.round(suggested.get().error(), 4));
    }

    /** The labelled single answers whose label is one of their options. */
    private static List<Calibration.Scored> scored(List<Entry> entries) {
        var scored = new ArrayList<Calibration.Scored>();
        for (Entry e : entries) {
            var keys = new ArrayList<>(e.raw().keySet());
            int expected = indexOf(keys, e.label(), e.answer().type().wire());
            if (expected >= 0 && keys.size() >= 1) {
                double[] p = e.raw().values().stream().mapToDouble(d -> d).toArray();
                scored.add(new Calibration.Scored(p, e.temperature(), expected));
            }
        }
        return scored;
    }

    private static int indexOf(List<String> keys, JsonNode label, String type) {
        if (type.equals("noul")) {
            return keys.size() == 2 ? List.of("no", "yes").indexOf(label.asText()) : -1; // options: no, then yes
        }
        if (type.equals("number")) {
            for (int i = 0; i < keys.size(); i++) {
                try {
                    if (Double.parseDouble(keys.get(i)) == label.asDouble()) {
                        return i;
                    }
                } catch (NumberFormatException e) {
                    return -1; // a number question's options are numbers; anything else is no match
                }
            }
            return -1;
        }
        return keys.indexOf(label.asText());
    }

    private static ObjectNode confusion(List<Entry> entries) {
        var counts = new LinkedHashMap<String, Map<String, Integer>>();
        for (Entry e : entries) {
            counts.computeIfAbsent(e.label().asText(), k -> new LinkedHashMap<>())
                    .merge(e.answer().word(), 1, Integer::sum);
        }
        ObjectNode json = Json.object();
        counts.forEach((expected, predicted) -> {
            ObjectNode row = json.putObject(expected);
            predicted.forEach(row::put);
        });
        return json;
    }

    private static Agreement.Levels levels(Entry e) {
        var keys = new ArrayList<>(e.answer().probabilities().keySet());
        return new Agreement.Levels(
                keys.indexOf(e.label().asText()), keys.indexOf(e.answer().word()));
    }

    private static Agreement.Selection selection(Entry e) {
        Set<String> expected = new HashSet<>();
        e.label().forEach(o -> expected.add(o.asText()));
        Set<String> predicted = new HashSet<>(e.answer() instanceof Answer.Multi multi ? multi.selected() : List.of());
        return new Agreement.Selection(expected, predicted);
    }

    /** Per model, each version against the one before it: items fixed and broken, and the exact McNemar p. */
    private static ArrayNode comparisons(
            List<ObjectNode> targets,
            List<Optional<String>> models,
            Map<Integer, List<EvalStore.Item>> byTarget,
            List<String> questions) {
        var list = Json.mapper().createArrayNode();
        for (int later = 1; later < targets.size(); later++) {
            int earlier = later - 1;
            JsonNode from = targets.get(earlier).path("version");
            JsonNode to = targets.get(later).path("version");
            if (models.get(earlier).isEmpty()
                    || !models.get(earlier).equals(models.get(later))
                    || !from.isNumber()
                    || from.equals(to)) {
                continue;
            }
            ObjectNode comparison = list.addObject();
            comparison.put("model", models.get(later).get());
            comparison.set("from_version", from);
            comparison.set("to_version", to);
            comparison.put("from_target", earlier);
            comparison.put("to_target", later);
            ObjectNode perQuestion = comparison.putObject("questions");
            for (String question : questions) {
                Map<Integer, Boolean> before = correctness(requireNonNull(byTarget.get(earlier)), question);
                Map<Integer, Boolean> after = correctness(requireNonNull(byTarget.get(later)), question);
                int paired = 0;
                int fixed = 0;
                int broken = 0;
                for (var entry : before.entrySet()) {
                    Boolean then = after.get(entry.getKey());
                    if (then != null) {
                        paired++;
                        fixed += !entry.getValue() && then ? 1 : 0;
                        broken += entry.getValue() && !then ? 1 : 0;
                    }
                }
                if (paired > 0) {
                    perQuestion
                            .putObject(question)
                            .put("n", paired)
                            .put("fixed", fixed)
                            .put("broken", broken)
                            .put("mcnemar_p", Rounding.round(Agreement.mcNemarP(fixed, broken), 6));
                }
            }
        }
        return list;
    }

    private static Map<Integer, Boolean> correctness(List<EvalStore.Item> items, String question) {
        var correct = new HashMap<Integer, Boolean>();
        for (Entry e : entries(items, question)) {
            if (e.labelled()) {
                correct.put(e.position(), e.right());
            }
        }
        return correct;
    }

    private static JsonNode ratio(int part, int whole) {
        return number(whole == 0 ? 0 : part / (double) whole, whole == 0);
    }

    /** A measure rounded as answers are, or null when there was nothing to measure. */
    private static JsonNode number(double value, boolean none) {
        return none ? Json.mapper().nullNode() : Json.mapper().getNodeFactory().numberNode(Rounding.round(value, 4));
    }
}
