package dev.arbor.studio.running;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.planning.SettingsLadder;
import dev.arbor.studio.questions.AnswerRow;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Probabilities;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.QuestionDefinition;
import dev.arbor.studio.questions.Rounding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * From an engine's probabilities to answers: clean and normalise (the raw probabilities history keeps), calibrate
 * with the question's temperature, derive each type's fields, then gate: {@code certainty}, and {@code act} when it
 * reaches the question's act threshold. Pure: the same probabilities and settings always give the same answers.
 */
final class Answers {
    /**
     * @param answers the answers by question key, in question order
     * @param raw the raw probabilities by question key and option (multi: by option), six decimals
     * @param needsReview the keys whose answer does not act, in question order
     */
    record Result(
            ObjectNode answers,
            ObjectNode raw,
            boolean act,
            List<String> needsReview,
            double minCertainty,
            List<AnswerRow> rows) {}

    private Answers() {}

    static Result of(
            List<Question> questions, Map<String, List<Double>> probabilities, SettingsLadder.Effective settings) {
        ObjectNode answers = Json.object();
        ObjectNode raw = Json.object();
        var needsReview = new ArrayList<String>();
        var rows = new ArrayList<AnswerRow>();
        double minCertainty = 1.0;
        int position = 0;
        for (Question question : questions) {
            SettingsLadder.QuestionSettings own = settings.of(question.key());
            ObjectNode answer = answers.putObject(question.key());
            answer.put("type", question.type().wire());
            List<String> keys = question.optionKeys();
            double certainty;
            if (question.definition() instanceof QuestionDefinition.Multi) {
                certainty = multi(
                        question, keys, probabilities, own, answer, raw.putObject(question.key()), rows, position);
            } else {
                double[] cleaned = Probabilities.clean(probabilities.get(question.key()), keys.size());
                ObjectNode rawOwn = raw.putObject(question.key());
                for (int i = 0; i < keys.size(); i++) {
                    rawOwn.put(keys.get(i), Rounding.round(cleaned[i], 6));
                }
                double[] p = Probabilities.calibrate(cleaned, own.temperature());
                Single single = single(question, keys, p, answer);
                certainty = single.certainty();
                rows.add(new AnswerRow(
                        question.key(),
                        0,
                        position,
                        question.type(),
                        single.decision(),
                        single.value(),
                        certainty,
                        certainty >= own.actThreshold(),
                        question.origin()));
            }
            boolean act = certainty >= own.actThreshold();
            answer.put("certainty", Rounding.round(certainty, 4));
            answer.put("act", act);
            answer.put("origin", question.origin().wire());
            if (question.dynamicOptions()) {
                answer.put("dynamic_options", true);
            }
            if (!act) {
                needsReview.add(question.key());
            }
            minCertainty = Math.min(minCertainty, certainty);
            position++;
        }
        return new Result(
                answers,
                raw,
                needsReview.isEmpty(),
                List.copyOf(needsReview),
                Rounding.round(minCertainty, 4),
                List.copyOf(rows));
    }

    /**
     * What history indexes of a single answer (see {@link AnswerRow}).
     *
     * @param certainty the top probability
     * @param decision the answer: option, level key, value, yes or no
     * @param value the number behind it: P(yes), expected level, estimate, else the top probability (rounded)
     */
    private record Single(double certainty, String decision, double value) {}

    /** Fills a choice, rank, score, number or yes/no answer. */
    private static Single single(Question question, List<String> keys, double[] p, ObjectNode answer) {
        int top = argmax(p);
        double topProbability = p[top];
        String decision = keys.get(top);
        double value = Rounding.round(topProbability, 4);
        ObjectNode probabilities = Json.object();
        for (int i = 0; i < keys.size(); i++) {
            probabilities.put(keys.get(i), Rounding.round(p[i], 4));
        }
        switch (question.definition()) {
            case QuestionDefinition.Choice _ -> {
                answer.put("choice", keys.get(top));
                answer.set("probabilities", probabilities);
                answer.put("confidence", Rounding.round(choiceConfidence(topProbability, keys.size()), 4));
                answer.put("decision", keys.get(top));
            }
            case QuestionDefinition.Rank _ -> {
                Integer[] order = IntStream.range(0, keys.size()).boxed().toArray(Integer[]::new);
                Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -p[i]));
                ArrayNode ranking = answer.putArray("ranking");
                Arrays.stream(order).forEach(i -> ranking.add(keys.get(i)));
                answer.put("choice", keys.get(top));
                answer.set("probabilities", probabilities);
                answer.put("confidence", Rounding.round(choiceConfidence(topProbability, keys.size()), 4));
                answer.put("decision", keys.get(top));
            }
            case QuestionDefinition.Score score -> {
                value = Rounding.round(expected(p), 4);
                answer.put("score", value);
                answer.set("legend", score.legend());
                answer.set("probabilities", probabilities);
                answer.put("confidence", Rounding.round(scaleConfidence(p, top), 4));
                answer.put("decision", keys.get(top));
            }
            case QuestionDefinition.NumberScale number -> {
                value = number(number, keys, p, top, probabilities, answer);
                decision = String.valueOf(Primitives.value(keys.get(top)));
            }
            case QuestionDefinition.YesNo _ -> {
                value = Rounding.round(p[1], 4);
                decision = p[1] >= 0.5 ? "yes" : "no";
                answer.put("noul", value);
                answer.set("probabilities", probabilities);
                answer.put("decision", decision);
            }
            case QuestionDefinition.Multi _ ->
                throw new IllegalArgumentException("a multi question has no single answer");
        }
        answer.put("top_probability", Rounding.round(topProbability, 4));
        return new Single(topProbability, decision, value);
    }

    /** Fills a number answer; returns its estimate, rounded as the answer shows it. */
    private static double number(
            QuestionDefinition.NumberScale question,
            List<String> keys,
            double[] p,
            int top,
            ObjectNode probabilities,
            ObjectNode answer) {
        double estimate = 0;
        for (int i = 0; i < keys.size(); i++) {
            estimate += Primitives.value(keys.get(i)).doubleValue() * p[i];
        }
        double rounded = Rounding.round(estimate, 4);
        answer.put("estimate", rounded);
        answer.set("most_likely", Json.mapper().valueToTree(Primitives.value(keys.get(top))));
        int lower = -1;
        int upper = keys.size() - 1;
        double cumulative = 0;
        for (int i = 0; i < keys.size(); i++) {
            cumulative += p[i];
            if (lower < 0 && cumulative > 0.1) {
                lower = i;
            }
            if (cumulative >= 0.9 - 1e-9) {
                upper = i;
                break;
            }
        }
        ArrayNode range = answer.putArray("range");
        range.add(Json.mapper().valueToTree(Primitives.value(keys.get(Math.max(lower, 0)))));
        range.add(Json.mapper().valueToTree(Primitives.value(keys.get(upper))));
        question.unit().ifPresent(unit -> answer.put("unit", unit));
        answer.set("probabilities", probabilities);
        answer.put("confidence", Rounding.round(scaleConfidence(p, top), 4));
        answer.set("decision", Json.mapper().valueToTree(Primitives.value(keys.get(top))));
        return rounded;
    }

    /** One yes/no child per option; returns the certainty, the least sure of the options. */
    private static double multi(
            Question question,
            List<String> keys,
            Map<String, List<Double>> probabilities,
            SettingsLadder.QuestionSettings own,
            ObjectNode answer,
            ObjectNode raw,
            List<AnswerRow> rows,
            int position) {
        ArrayNode selected = Json.mapper().createArrayNode();
        ObjectNode byOption = Json.object();
        double certainty = 1.0;
        double top = 0;
        var chosen = new ArrayList<String>();
        double[] applies = new double[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            double[] cleaned = Probabilities.clean(probabilities.get(question.key() + Primitives.CHILD + i), 2);
            raw.put(keys.get(i), Rounding.round(cleaned[1], 6));
            double[] p = Probabilities.calibrate(cleaned, own.temperature());
            applies[i] = p[1];
            byOption.put(keys.get(i), Rounding.round(p[1], 4));
            if (p[1] >= own.multiThreshold()) {
                selected.add(keys.get(i));
                chosen.add(keys.get(i));
            }
            double sure = Math.max(p[1], 1 - p[1]);
            certainty = Math.min(certainty, sure);
            top = Math.max(top, sure);
        }
        answer.set("selected", selected);
        answer.set("probabilities", byOption);
        answer.put("threshold", own.multiThreshold());
        answer.set("decision", selected.deepCopy());
        answer.put("top_probability", Rounding.round(top, 4));
        boolean act = certainty >= own.actThreshold();
        if (chosen.isEmpty()) {
            rows.add(new AnswerRow(
                    question.key(), 0, position, QuestionType.MULTI, null, 0, certainty, act, question.origin()));
        }
        for (int i = 0; i < chosen.size(); i++) {
            rows.add(new AnswerRow(
                    question.key(),
                    i,
                    position,
                    QuestionType.MULTI,
                    chosen.get(i),
                    applies[keys.indexOf(chosen.get(i))],
                    certainty,
                    act,
                    question.origin()));
        }
        return certainty;
    }

    private static int argmax(double[] p) {
        int best = 0;
        for (int i = 1; i < p.length; i++) {
            if (p[i] > p[best]) {
                best = i;
            }
        }
        return best;
    }

    private static double choiceConfidence(double top, int options) {
        return options == 1 ? 1.0 : Math.max(0, (top - 1.0 / options) / (1 - 1.0 / options));
    }

    private static double expected(double[] p) {
        double sum = 0;
        for (int i = 0; i < p.length; i++) {
            sum += i * p[i];
        }
        return sum;
    }

    /** 1 minus the expected distance from the most likely level, against that of a spread-out answer. */
    private static double scaleConfidence(double[] p, int mode) {
        int n = p.length;
        if (n == 1) {
            return 1.0;
        }
        double spread = 0;
        for (int i = 0; i < n; i++) {
            spread += Math.abs(i - (n - 1) / 2.0);
        }
        spread /= n;
        double distance = 0;
        for (int i = 0; i < n; i++) {
            distance += p[i] * Math.abs(i - mode);
        }
        return Math.max(0, 1 - distance / spread);
    }
}
