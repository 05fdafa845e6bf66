package dev.arbor.studio.templates;

import dev.arbor.models.ModelFacts;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.Warning;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateQuestion;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.UndescribedOptions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;

/**
 * What a template version asks of a model, once its questions are reduced to the primitive types models answer:
 * multi to one yes/no per option, rank to choice, number to score.
 */
final class TemplateNeeds {
    private TemplateNeeds() {}

    static ModelFacts.Needs of(TemplateDefinition definition) {
        var types = new HashSet<String>();
        int largest = 0;
        int count = 0;
        for (TemplateQuestion question : definition.questions().values()) {
            int options = question.fixedOptionCount();
            QuestionType type = question.type();
            types.add(type.primitive().wire());
            largest = Math.max(largest, type.primitive() == Scoring.Primitive.NOUL ? 2 : options);
            count += type == QuestionType.MULTI ? Math.max(1, options) : 1;
        }
        var modalities = new HashSet<String>();
        int longestText = 0;
        for (Variable variable : definition.variables().values()) {
            if (variable.isMedia() && variable.required()) {
                modalities.add(variable.typeName());
            }
            if (variable.typeName().equals("string")) {
                longestText = Math.max(longestText, variable.maxLength());
            }
        }
        return new ModelFacts.Needs(types, largest, count, modalities, longestText / 4);
    }

    /** The {@code options_undescribed} warnings of a template's questions (their options per call are left out). */
    static List<Warning> undescribed(TemplateDefinition definition) {
        var questions = new ArrayList<Question>();
        definition
                .questions()
                .forEach((key, question) -> questions.add(Question.of(
                        key,
                        question.normal(),
                        Question.Origin.TEMPLATE,
                        question.optionsVariable().isPresent())));
        return UndescribedOptions.warnings(questions);
    }

    /**
     * What a caller should know although nothing stops the model: media it cannot read, options set per call, input
     * it may cut.
     */
    static List<String> notes(TemplateDefinition definition, ModelFacts facts) {
        var notes = new ArrayList<String>();
        facts.truncation(of(definition)).ifPresent(notes::add);
        definition.variables().forEach((name, variable) -> {
            if (variable.isMedia()
                    && !variable.required()
                    && !facts.modalities().contains(variable.typeName())) {
                notes.add("The optional " + variable.typeName() + " variable `" + name
                        + "` cannot be read by this model.");
            }
        });
        definition.questions().forEach((key, question) -> {
            if (question.optionsVariable().isPresent()) {
                notes.add("`" + key + "` takes its options per decision; keep them to at most " + facts.maxOptions()
                        + ".");
            }
        });
        return List.copyOf(notes);
    }
}
