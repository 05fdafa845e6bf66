package dev.arbor.studio.evals;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import org.jspecify.annotations.Nullable;

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
     * @param targets the eval's targets as it shows them, in order ({@code index}, {@code version}, {@code model})
     * @param questions the questions measured, in order
     */
    static EvalResults of(List<ObjectNode> targets, List<String> questions, List<EvalStore.Item> items, double budget) {
        var byTarget = new LinkedHashMap<Integer, List<EvalStore.Item>>();
        for (int t = 0; t < targets.size(); t++) {
            byTarget.put(t, new ArrayList<>());
        }
        items.forEach(item ->
                byTarget.computeIfAbsent(item.target(), k -> new ArrayList<>()).add(item));
        var shown = new ArrayList<EvalResults.TargetResults>();
        var models = new ArrayList<Optional<String>>();
        var versions = new ArrayList<Optional<Integer>>();
        for (var entry : byTarget.entrySet()) {
            List<EvalStore.Item> ofTarget = entry.getValue();
            ObjectNode target = targets.get(entry.getKey());
            Optional<String> model = ofTarget.stream()
                    .flatMap(item -> item.answers().stream())
                    .map(answers -> answers.path("model").asText(""))
                    .filter(m -> !m.isEmpty())
                    .findFirst();
            models.add(model);
            JsonNode version = target.path("version");
            versions.add(version.isInt() ? Optional.of(version.intValue()) : Optional.empty());
            boolean split = ofTarget.stream().anyMatch(i -> i.split().equals(Optional.of("calibration")))
                    && ofTarget.stream().anyMatch(i -> i.split().equals(Optional.of("test")));
            var perQuestion = new LinkedHashMap<String, EvalResults.QuestionMetrics>();
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
                perQuestion.put(question, question(measured, fit, budget));
            }
            shown.add(new EvalResults.TargetResults(
                    target.path("index").asInt(),
                    versions.getLast().orElse(null),
                    model.or(() -> Optional.ofNullable(target.path("model").textValue()))
                            .orElse(null),
                    ofTarget.size(),
                    ofTarget.stream().filter(i -> i.answers().isEmpty()).count(),
                    split ? "test" : "all",
                    split ? "calibration" : "all",
                    perQuestion));
        }
        return new EvalResults(shown, comparisons(models, versions, byTarget, questions));
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

    private static EvalResults.QuestionMetrics question(List<Entry> measured, List<Entry> fit, double budget) {
        String type =
                (measured.isEmpty() ? fit : measured).getFirst().answer().type().wire();
        List<Entry> labelled = measured.stream().filter(Entry::labelled).toList();
        int correct = (int) labelled.stream().filter(Entry::right).count();
        EvalResults.Calibrated calibrated = type.equals("multi")
                ? null
                : calibration(labelled, fit.stream().filter(Entry::labelled).toList(), budget);
        EvalResults.Confusion confusion = null;
        EvalResults.Levels levels = null;
        EvalResults.Selections selections = null;
        EvalResults.Rankings rankings = null;
        EvalResults.Estimates estimates = null;
        switch (type) {
            case "choice", "noul" -> confusion = new EvalResults.Confusion(confusion(labelled));
            case "score" -> {
                var pairs = labelled.stream().map(EvalMetrics::levels).toList();
                levels = new EvalResults.Levels(
                        number(Agreement.withinOne(pairs), pairs.isEmpty()),
                        number(Agreement.meanLevelError(pairs), pairs.isEmpty()));
            }
            case "multi" -> {
                var chosen = labelled.stream().map(EvalMetrics::selection).toList();
                selections = new EvalResults.Selections(
                        number(Agreement.f1(chosen), chosen.isEmpty()),
                        number(Agreement.exactMatch(chosen), chosen.isEmpty()));
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
                rankings = new EvalResults.Rankings(
                        taus.size(),
                        number(taus.stream().mapToDouble(d -> d).average().orElse(0), taus.isEmpty()));
            }
            case "number" -> {
                var pairs = labelled.stream()
                        .map(e -> new Agreement.Estimate(
                                e.label().asDouble(),
                                e.answer() instanceof Answer.Estimate estimate ? estimate.estimate() : 0,
                                e.right()))
                        .toList();
                estimates = new EvalResults.Estimates(
                        number(Agreement.meanAbsoluteError(pairs), pairs.isEmpty()),
                        number(Agreement.withinRange(pairs), pairs.isEmpty()));
            }
            default -> {} // no measures of its own
        }
        return new EvalResults.QuestionMetrics(
                type,
                labelled.size(),
                correct,
                measured.stream().filter(Entry::unfit).count(),
                ratio(correct, labelled.size()),
                calibrated,
                confusion,
                levels,
                selections,
                rankings,
                estimates);
    }

    /** Brier, log loss, ECE, confident mistakes, and the temperature and threshold fitted on {@code fit}. */
    private static EvalResults.Calibrated calibration(List<Entry> measured, List<Entry> fit, double budget) {
        List<Calibration.Scored> scored = scored(measured);
        List<Calibration.Outcome> outcomes = Calibration.outcomes(scored);
        boolean none = scored.isEmpty();
        var reliability = Calibration.reliability(outcomes).stream()
                .map(bin -> new EvalResults.Bin(
                        bin.from(),
                        bin.to(),
                        bin.n(),
                        number(bin.confidence(), bin.n() == 0),
                        number(bin.accuracy(), bin.n() == 0)))
                .toList();
        List<Calibration.Scored> fitScored = scored(fit);
        double current = fit.isEmpty()
                ? measured.isEmpty() ? 1.0 : measured.getFirst().temperature()
                : fit.getFirst().temperature();
        double currentAct = (fit.isEmpty() ? measured : fit)
                .stream().findFirst().map(Entry::actThreshold).orElse(0.0);
        EvalResults.Temperature temperature = new EvalResults.Temperature(current, fitScored.size(), null, null, null);
        EvalResults.Threshold threshold = new EvalResults.Threshold(currentAct, budget, null, null, null);
        if (!fitScored.isEmpty()) {
            Calibration.Fit fitted = Calibration.fitTemperature(fitScored, current);
            temperature = new EvalResults.Temperature(
                    current,
                    fitScored.size(),
                    Rounding.round(fitted.fitted(), 4),
                    Rounding.round(fitted.logLossCurrent(), 4),
                    Rounding.round(fitted.logLossFitted(), 4));
            Optional<Calibration.Threshold> suggested =
                    Calibration.suggestThreshold(Calibration.outcomesAt(fitScored, fitted.fitted()), budget);
            if (suggested.isPresent()) {
                threshold = new EvalResults.Threshold(
                        currentAct,
                        budget,
                        Rounding.round(suggested.get().threshold(), 4),
                        Rounding.round(suggested.get().coverage(), 4),
                        Rounding.round(suggested.get().error(), 4));
            }
        }
        return new EvalResults.Calibrated(
                number(Calibration.brier(scored), none),
                number(Calibration.logLoss(scored), none),
                number(Calibration.ece(outcomes), none),
                reliability,
                Calibration.confidentMistakes(outcomes),
                temperature,
                threshold);
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

    private static Map<String, Map<String, Integer>> confusion(List<Entry> entries) {
        var counts = new LinkedHashMap<String, Map<String, Integer>>();
        for (Entry e : entries) {
            counts.computeIfAbsent(e.label().asText(), k -> new LinkedHashMap<>())
                    .merge(e.answer().word(), 1, Integer::sum);
        }
        return counts;
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
    private static List<EvalResults.VersionComparison> comparisons(
            List<Optional<String>> models,
            List<Optional<Integer>> versions,
            Map<Integer, List<EvalStore.Item>> byTarget,
            List<String> questions) {
        var list = new ArrayList<EvalResults.VersionComparison>();
        for (int later = 1; later < models.size(); later++) {
            int earlier = later - 1;
            Optional<Integer> from = versions.get(earlier);
            Optional<Integer> to = versions.get(later);
            if (models.get(earlier).isEmpty()
                    || !models.get(earlier).equals(models.get(later))
                    || from.isEmpty()
                    || from.equals(to)) {
                continue;
            }
            var perQuestion = new LinkedHashMap<String, EvalResults.Paired>();
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
                    perQuestion.put(
                            question,
                            new EvalResults.Paired(
                                    paired, fixed, broken, Rounding.round(Agreement.mcNemarP(fixed, broken), 6)));
                }
            }
            list.add(new EvalResults.VersionComparison(
                    models.get(later).orElseThrow(), from.get(), to.orElse(null), earlier, later, perQuestion));
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

    private static @Nullable Double ratio(int part, int whole) {
        return number(whole == 0 ? 0 : part / (double) whole, whole == 0);
    }

    /** A measure rounded as answers are, or null when there was nothing to measure. */
    private static @Nullable Double number(double value, boolean none) {
        return none ? null : Rounding.round(value, 4);
    }
}
