package dev.arbor.studio.questions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.studio.definitions.QuestionType;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One question's answer, one record per question type, as the running code makes it; {@link AnswerCodec} writes it
 * to the decision's JSON and reads it back. Probabilities are calibrated and rounded as the decision shows them, by
 * option in the question's order.
 */
public sealed interface Answer
        permits Answer.Choice, Answer.Rank, Answer.Multi, Answer.Score, Answer.Estimate, Answer.YesNo {

    /** What every answer carries: how sure it is, whether to act on it, and where its question came from. */
    Gate gate();

    /** The probability of the most likely option (multi: of the surest option's side). */
    double topProbability();

    /** The probabilities the answer shows, by option (multi: that each option applies). */
    Map<String, Double> probabilities();

    default QuestionType type() {
        return switch (this) {
            case Choice _ -> QuestionType.CHOICE;
            case Rank _ -> QuestionType.RANK;
            case Multi _ -> QuestionType.MULTI;
            case Score _ -> QuestionType.SCORE;
            case Estimate _ -> QuestionType.NUMBER;
            case YesNo _ -> QuestionType.NOUL;
        };
    }

    /**
     * The answer as one word: the option (choice, rank), the level key (score), the most likely value (number),
     * {@code yes} or {@code no}; empty for multi, whose answer is a list.
     */
    default String word() {
        return switch (this) {
            case Choice choice -> choice.choice();
            case Rank rank -> rank.choice();
            case Score score -> score.level();
            case Estimate estimate -> AnswerCodec.numberText(estimate.mostLikely());
            case YesNo yesNo -> yesNo.yes() ? "yes" : "no";
            case Multi _ -> "";
        };
    }

    /** The same answer, given by a fitted head instead of the model. */
    default Answer fittedBy(String head) {
        Gate fitted = gate().fittedBy(head);
        return switch (this) {
            case Choice a -> new Choice(a.choice(), a.probabilities(), a.confidence(), a.topProbability(), fitted);
            case Rank a ->
                new Rank(a.ranking(), a.choice(), a.probabilities(), a.confidence(), a.topProbability(), fitted);
            case Multi a -> new Multi(a.selected(), a.probabilities(), a.threshold(), a.topProbability(), fitted);
            case Score a ->
                new Score(
                        a.score(),
                        a.legend(),
                        a.probabilities(),
                        a.confidence(),
                        a.level(),
                        a.topProbability(),
                        fitted);
            case Estimate a ->
                new Estimate(
                        a.estimate(),
                        a.mostLikely(),
                        a.low(),
                        a.high(),
                        a.unit(),
                        a.probabilities(),
                        a.confidence(),
                        a.topProbability(),
                        fitted);
            case YesNo a -> new YesNo(a.noul(), a.probabilities(), a.yes(), a.topProbability(), fitted);
        };
    }

    /** The answer as one line of text: {@link #word}, or a multi answer's selected options joined by {@code ;}. */
    default String line() {
        return this instanceof Multi multi ? String.join(";", multi.selected()) : word();
    }

    /**
     * @param certainty the top probability (multi: the least sure option's), four decimals
     * @param act whether certainty reaches the question's act threshold
     * @param dynamicOptions whether the options came from an options variable
     * @param head the fitted head that answered, when one did instead of the model
     */
    record Gate(double certainty, boolean act, Question.Origin origin, boolean dynamicOptions, Optional<String> head) {
        public Gate {
            requireNonNull(origin, "origin");
            requireNonNull(head, "head");
        }

        /** The same gate, answered by a fitted head. */
        public Gate fittedBy(String headId) {
            return new Gate(certainty, act, origin, dynamicOptions, Optional.of(headId));
        }
    }

    record Choice(String choice, Map<String, Double> probabilities, double confidence, double topProbability, Gate gate)
            implements Answer {
        public Choice {
            requireNonNull(choice, "choice");
            probabilities = ordered(probabilities);
            requireNonNull(gate, "gate");
        }
    }

    /** @param ranking the options, most likely first */
    record Rank(
            List<String> ranking,
            String choice,
            Map<String, Double> probabilities,
            double confidence,
            double topProbability,
            Gate gate)
            implements Answer {
        public Rank {
            ranking = List.copyOf(ranking);
            requireNonNull(choice, "choice");
            probabilities = ordered(probabilities);
            requireNonNull(gate, "gate");
        }
    }

    /**
     * @param selected the options whose probability reaches {@code threshold}, in the question's order
     * @param threshold the multi threshold the options were selected at
     */
    record Multi(
            List<String> selected,
            Map<String, Double> probabilities,
            double threshold,
            double topProbability,
            Gate gate)
            implements Answer {
        public Multi {
            selected = List.copyOf(selected);
            probabilities = ordered(probabilities);
            requireNonNull(gate, "gate");
        }
    }

    /**
     * @param score the expected level
     * @param legend the levels' descriptions (any JSON, as the template gives them), lowest first
     * @param level the most likely level's key
     */
    record Score(
            double score,
            List<JsonNode> legend,
            Map<String, Double> probabilities,
            double confidence,
            String level,
            double topProbability,
            Gate gate)
            implements Answer {
        public Score {
            legend = legend.stream().<JsonNode>map(JsonNode::deepCopy).toList();
            probabilities = ordered(probabilities);
            requireNonNull(level, "level");
            requireNonNull(gate, "gate");
        }

        @Override
        public List<JsonNode> legend() {
            return legend.stream().<JsonNode>map(JsonNode::deepCopy).toList();
        }
    }

    /**
     * A number question's answer. Values are the question's own ({@link Primitives#value}): whole numbers as
     * {@link Long}, others as {@link Double}.
     *
     * @param estimate the expected value
     * @param mostLikely the most likely value, which is also the decision
     * @param low the value from which the answer is more than 10% likely
     * @param high the value up to which it is 90% likely
     */
    record Estimate(
            double estimate,
            Number mostLikely,
            Number low,
            Number high,
            Optional<String> unit,
            Map<String, Double> probabilities,
            double confidence,
            double topProbability,
            Gate gate)
            implements Answer {
        public Estimate {
            requireNonNull(mostLikely, "mostLikely");
            requireNonNull(low, "low");
            requireNonNull(high, "high");
            requireNonNull(unit, "unit");
            probabilities = ordered(probabilities);
            requireNonNull(gate, "gate");
        }
    }

    /** @param noul the probability of yes */
    record YesNo(double noul, Map<String, Double> probabilities, boolean yes, double topProbability, Gate gate)
            implements Answer {
        public YesNo {
            probabilities = ordered(probabilities);
            requireNonNull(gate, "gate");
        }
    }

    private static Map<String, Double> ordered(Map<String, Double> probabilities) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(probabilities, "probabilities")));
    }
}
