package dev.arbor.studio.questions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.ModelFacts;
import dev.arbor.models.Scoring;
import dev.arbor.studio.templates.Substitution;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The six question types reduced to the three an engine answers: {@code multi} becomes one yes/no question per
 * option, {@code rank} a choice, {@code number} a scale over its values. Engines see only this.
 */
public final class Primitives {
    /** Separates a multi question's key from its option index; question keys never contain it. */
    public static final char CHILD = '#';

    private Primitives() {}

    public static List<Scoring.Question> of(List<Question> questions) {
        var primitives = new ArrayList<Scoring.Question>();
        for (Question question : questions) {
            String instructions = text(question.definition().path("instructions"));
            JsonNode criteria = question.criteria();
            switch (question.type()) {
                case "choice", "rank" -> {
                    var options = new ArrayList<Scoring.Option>();
                    criteria.properties()
                            .forEach(e ->
                                    options.add(new Scoring.Option(e.getKey(), e.getKey(), description(e.getValue()))));
                    primitives.add(new Scoring.Question(question.key(), "choice", instructions, options));
                }
                case "score" -> {
                    var options = new ArrayList<Scoring.Option>();
                    for (int i = 0; i < criteria.size(); i++) {
                        options.add(new Scoring.Option(Integer.toString(i), text(criteria.get(i)), null));
                    }
                    primitives.add(new Scoring.Question(question.key(), "score", instructions, options));
                }
                case "number" -> {
                    String unit = question.definition().path("unit").asText("");
                    var options = new ArrayList<Scoring.Option>();
                    criteria.properties().forEach(e -> {
                        String description = description(e.getValue());
                        options.add(new Scoring.Option(
                                e.getKey(),
                                e.getKey()
                                        + (unit.isEmpty() ? "" : " " + unit)
                                        + (description == null ? "" : ": " + description),
                                null));
                    });
                    primitives.add(new Scoring.Question(question.key(), "score", instructions, options));
                }
                case "noul" ->
                    primitives.add(yesNo(
                            question.key(),
                            instructions,
                            description(criteria.get("false")),
                            description(criteria.get("true"))));
                case "multi" -> {
                    int i = 0;
                    for (var entries = criteria.properties().iterator(); entries.hasNext(); i++) {
                        var option = entries.next();
                        String description = description(option.getValue());
                        primitives.add(yesNo(
                                question.key() + CHILD + i,
                                instructions + "\nDoes \"" + option.getKey() + "\" apply?"
                                        + (description == null ? "" : " (" + description + ")"),
                                null,
                                null));
                    }
                }
                default -> throw new IllegalArgumentException("unknown question type " + question.type());
            }
        }
        return List.copyOf(primitives);
    }

    /** What the questions ask of a model, checked against its catalog facts before anything loads. */
    public static ModelFacts.Needs needs(List<Scoring.Question> primitives, Set<String> modalities, int contextTokens) {
        var types = new HashSet<String>();
        int largest = 0;
        for (Scoring.Question question : primitives) {
            types.add(question.type());
            largest = Math.max(largest, question.options().size());
        }
        return new ModelFacts.Needs(types, largest, primitives.size(), modalities, contextTokens);
    }

    private static Scoring.Question yesNo(String key, String instructions, String no, String yes) {
        return new Scoring.Question(
                key,
                "noul",
                instructions,
                List.of(new Scoring.Option("false", "no", no), new Scoring.Option("true", "yes", yes)));
    }

    private static String text(JsonNode value) {
        return value == null || value.isMissingNode() ? "" : Substitution.asText(value);
    }

    private static String description(JsonNode value) {
        return value == null || value.isNull() || value.isMissingNode() ? null : Substitution.asText(value);
    }

    /** A number question's value as the answer shows it: whole numbers without decimals. */
    public static Number value(String key) {
        BigDecimal value = new BigDecimal(key);
        if (value.stripTrailingZeros().scale() <= 0 && value.abs().compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) < 0) {
            return value.longValue();
        }
        return value.doubleValue();
    }
}
