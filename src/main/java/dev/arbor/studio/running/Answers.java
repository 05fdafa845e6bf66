package dev.arbor.studio.running;

import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.planning.SettingsLadder;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.AnswerRow;
import dev.arbor.studio.questions.Primitives;
import dev.arbor.studio.questions.Probabilities;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.QuestionDefinition;
import dev.arbor.studio.questions.Rounding;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
            Map<String, Answer> answers,
            Map<String, Map<String, Double>> raw,
            boolean act,
            List<String> needsReview,
            double minCertainty,
            List<AnswerRow> rows) {
        Result {
            answers = Collections.unmodifiableMap(new LinkedHashMap<>(answers));
            raw = Collections.unmodifiableMap(new LinkedHashMap<>(raw));
            needsReview = List.copyOf(needsReview);
            rows = List.copyOf(rows);
        }

        /** The same answers, those of {@code heads} (question key to head id) given by those fitted heads. */
        Result fittedBy(Map<String, String> heads) {
            var fitted = new LinkedHashMap<String, Answer>();
            answers.forEach((key, answer) ->
                    fitted.put(key, heads.containsKey(key) ? answer.fittedBy(heads.get(key)) : answer));
            return new Result(fitted, raw, act, needsReview, minCertainty, rows);
        }
    }

    private Answers() {}

    static Result of(
            List<Question> questions, Map<String, List<Double>> probabilities, SettingsLadder.Effective settings) {
        var answers = new LinkedHashMap<String, Answer>();
        var raw = new LinkedHashMap<String, Map<String, Double>>();
        var needsReview = new ArrayList<String>();
        var rows = new ArrayList<AnswerRow>();
        double minCertainty = 1.0;
        int position = 0;
        for (Question question : questions) {
            SettingsLadder.QuestionSettings own = settings.of(question.key());
            List<String> keys = question.optionKeys();
            var rawOwn = new LinkedHashMap<String, Double>();
            Gated gated;
            if (question.definition() instanceof QuestionDefinition.Multi) {
                gated = multi(question, keys, probabilities, own, rawOwn, rows, position);
            } else {
                double[] cleaned = Probabilities.clean(probabilities.get(question.key()), keys.size());
                for (int i = 0; i < keys.size(); i++) {
                    rawOwn.put(keys.get(i), Rounding.round(cleaned[i], 6));
                }
                double[] p = Probabilities.calibrate(cleaned, own.temperature());
                Single single = single(question, keys, p, own);
                gated = new Gated(single.answer(), single.certainty());
                rows.add(new AnswerRow(
                        question.key(),
                        0,
                        position,
                        question.type(),
                        single.decision(),
                        single.value(),
                        single.certainty(),
                        single.answer().gate().act(),
                        question.origin()));
            }
            answers.put(question.key(), gated.answer());
            raw.put(question.key(), Collections.unmodifiableMap(rawOwn));
            if (!gated.answer().gate().act()) {
                needsReview.add(question.key());
            }
            minCertainty = Math.min(minCertainty, gated.certainty());
            position++;
        }
        return new Result(answers, raw, needsReview.isEmpty(), needsReview, Rounding.round(minCertainty, 4), rows);
    }

    /** An answer and its certainty before rounding, which gates it and which history indexes. */
    private record Gated(Answer answer, double certainty) {}

    private static Answer.Gate gate(Question question, double certainty, SettingsLadder.QuestionSettings own) {
        return new Answer.Gate(
                Rounding.round(certainty, 4),
                certainty >= own.actThreshold(),
                question.origin(),
                question.dynamicOptions(),
                Optional.empty());
    }

    /**
     * A single answer and what history indexes of it (see {@link AnswerRow}).
     *
     * @param certainty the top probability
     * @param decision the answer: option, level key, value, yes or no
     * @param value the number behind it: P(yes), expected level, estimate, else the top probability (rounded)
     */
    private record Single(Answer answer, double certainty, String decision, double value) {}

    /** A choice, rank, score, number or yes/no answer. */
    private static Single single(
            Question question, List<String> keys, double[] p, SettingsLadder.QuestionSettings own) {
        int top = argmax(p);
        double topProbability = p[top];
        double shownTop = Rounding.round(topProbability, 4);
        Answer.Gate gate = gate(question, topProbability, own);
        var probabilities = new LinkedHashMap<String, Double>();
        for (int i = 0; i < keys.size(); i++) {
            probabilities.put(keys.get(i), Rounding.round(p[i], 4));
        }
        String best = keys.get(top);
        return switch (question.definition()) {
            case QuestionDefinition.Choice _ ->
                new Single(
                        new Answer.Choice(best, probabilities, choiceConfidence(p, top), shownTop, gate),
                        topProbability,
                        best,
                        shownTop);
            case QuestionDefinition.Rank _ -> {
                Integer[] order = IntStream.range(0, keys.size()).boxed().toArray(Integer[]::new);
                Arrays.sort(order, Comparator.comparingDouble((Integer i) -> -p[i]));
                List<String> ranking = Arrays.stream(order).map(keys::get).toList();
                yield new Single(
                        new Answer.Rank(ranking, best, probabilities, choiceConfidence(p, top), shownTop, gate),
                        topProbability,
                        best,
                        shownTop);
            }
            case QuestionDefinition.Score score -> {
                double expected = Rounding.round(expected(p), 4);
                yield new Single(
                        new Answer.Score(
                                expected,
                                score.levels(),
                                probabilities,
                                Rounding.round(scaleConfidence(p, top), 4),
                                best,
                                shownTop,
                                gate),
                        topProbability,
                        best,
                        expected);
            }
            case QuestionDefinition.NumberScale number -> {
                Answer.Estimate estimate = number(number, keys, p, top, probabilities, shownTop, gate);
                yield new Single(estimate, topProbability, String.valueOf(estimate.mostLikely()), estimate.estimate());
            }
            case QuestionDefinition.YesNo _ -> {
                double yes = Rounding.round(p[1], 4);
                boolean said = p[1] >= 0.5;
                yield new Single(
                        new Answer.YesNo(yes, probabilities, said, shownTop, gate),
                        topProbability,
                        said ? "yes" : "no",
                        yes);
            }
            case QuestionDefinition.Multi _ ->
                throw new IllegalArgumentException("a multi question has no single answer");
        };
    }

    /** A number answer: its estimate, most likely value, and the range it is 80% sure of. */
    private static Answer.Estimate number(
            QuestionDefinition.NumberScale question,
            List<String> keys,
            double[] p,
            int top,
            Map<String, Double> probabilities,
            double shownTop,
            Answer.Gate gate) {
        double estimate = 0;
        for (int i = 0; i < keys.size(); i++) {
            estimate += Primitives.value(keys.get(i)).doubleValue() * p[i];
        }
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
        return new Answer.Estimate(
                Rounding.round(estimate, 4),
                Primitives.value(keys.get(top)),
                Primitives.value(keys.get(Math.max(lower, 0))),
                Primitives.value(keys.get(upper)),
                question.unit(),
                probabilities,
                Rounding.round(scaleConfidence(p, top), 4),
                shownTop,
                gate);
    }

    /** One yes/no child per option; its certainty is the least sure of the options. */
    private static Gated multi(
            Question question,
            List<String> keys,
            Map<String, List<Double>> probabilities,
            SettingsLadder.QuestionSettings own,
            Map<String, Double> raw,
            List<AnswerRow> rows,
            int position) {
        var byOption = new LinkedHashMap<String, Double>();
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
                chosen.add(keys.get(i));
            }
            double sure = Math.max(p[1], 1 - p[1]);
            certainty = Math.min(certainty, sure);
            top = Math.max(top, sure);
        }
        Answer.Gate gate = gate(question, certainty, own);
        if (chosen.isEmpty()) {
            rows.add(new AnswerRow(
                    question.key(),
                    0,
                    position,
                    QuestionType.MULTI,
                    null,
                    0,
                    certainty,
                    gate.act(),
                    question.origin()));
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
                    gate.act(),
                    question.origin()));
        }
        return new Gated(
                new Answer.Multi(chosen, byOption, own.multiThreshold(), Rounding.round(top, 4), gate), certainty);
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

    private static double choiceConfidence(double[] p, int top) {
        int options = p.length;
        return Rounding.round(options == 1 ? 1.0 : Math.max(0, (p[top] - 1.0 / options) / (1 - 1.0 / options)), 4);
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
