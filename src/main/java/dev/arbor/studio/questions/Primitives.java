package dev.arbor.studio.questions;

import dev.arbor.models.ModelFacts;
import dev.arbor.models.engines.Scoring;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The questions an engine is asked for a decision's questions, each of the primitive type its
 * {@link dev.arbor.studio.definitions.QuestionType} names: {@code multi} becomes one yes/no question per option,
 * {@code rank} a choice, {@code number} a scale over its values. Engines see only this.
 */
public final class Primitives {
    /** Separates a multi question's key from its option index; question keys never contain it. */
    public static final char CHILD = '#';

    private Primitives() {}

    public static List<Scoring.Question> of(List<Question> questions) {
        var primitives = new ArrayList<Scoring.Question>();
        for (Question question : questions) {
            String key = question.key();
            QuestionDefinition definition = question.definition();
            String instructions = QuestionDefinition.text(definition.instructions());
            String primitive = definition.type().primitive().wire();
            switch (definition) {
                case QuestionDefinition.Choice choice ->
                    primitives.add(new Scoring.Question(key, primitive, instructions, named(choice.options())));
                case QuestionDefinition.Rank rank ->
                    primitives.add(new Scoring.Question(key, primitive, instructions, named(rank.options())));
                case QuestionDefinition.Score score -> {
                    var options = new ArrayList<Scoring.Option>();
                    for (int i = 0; i < score.levels().size(); i++) {
                        options.add(new Scoring.Option(
                                Integer.toString(i),
                                QuestionDefinition.text(score.levels().get(i)),
                                null));
                    }
                    primitives.add(new Scoring.Question(key, primitive, instructions, options));
                }
                case QuestionDefinition.NumberScale number -> {
                    String unit = number.unit()
                            .filter(u -> !u.isEmpty())
                            .map(u -> " " + u)
                            .orElse("");
                    var options = new ArrayList<Scoring.Option>();
                    for (QuestionDefinition.Option value : number.values()) {
                        String description = QuestionDefinition.description(value.description());
                        options.add(new Scoring.Option(
                                value.name(),
                                value.name() + unit + (description == null ? "" : ": " + description),
                                null));
                    }
                    primitives.add(new Scoring.Question(key, primitive, instructions, options));
                }
                case QuestionDefinition.YesNo yesNo ->
                    primitives.add(yesNo(
                            key,
                            instructions,
                            yesNo.side(false)
                                    .map(QuestionDefinition::description)
                                    .orElse(null),
                            yesNo.side(true)
                                    .map(QuestionDefinition::description)
                                    .orElse(null)));
                case QuestionDefinition.Multi multi -> {
                    for (int i = 0; i < multi.options().size(); i++) {
                        var option = multi.options().get(i);
                        String description = QuestionDefinition.description(option.description());
                        primitives.add(yesNo(
                                key + CHILD + i,
                                instructions + "\nDoes \"" + option.name() + "\" apply?"
                                        + (description == null ? "" : " (" + description + ")"),
                                null,
                                null));
                    }
                }
            }
        }
        return List.copyOf(primitives);
    }

    private static List<Scoring.Option> named(List<QuestionDefinition.Option> options) {
        return options.stream()
                .map(option -> new Scoring.Option(
                        option.name(), option.name(), QuestionDefinition.description(option.description())))
                .toList();
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

    private static Scoring.Question yesNo(String key, String instructions, @Nullable String no, @Nullable String yes) {
        return new Scoring.Question(
                key,
                Scoring.Primitive.NOUL.wire(),
                instructions,
                List.of(new Scoring.Option("false", "no", no), new Scoring.Option("true", "yes", yes)));
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
