package dev.arbor.studio.templates;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.models.ModelFacts;
import dev.arbor.models.engines.Scoring;
import dev.arbor.platform.errors.Warning;
import dev.arbor.studio.definitions.QuestionType;
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

    static ModelFacts.Needs of(JsonNode definition) {
        var types = new HashSet<String>();
        int largest = 0;
        int count = 0;
        for (JsonNode question : definition.path("questions")) {
            JsonNode criteria = question.path("criteria");
            int options = criteria.isTextual() ? 0 : criteria.size();
            QuestionType type =
                    QuestionType.parse(question.path("type").asText()).orElseThrow();
            types.add(type.primitive().wire());
            largest = Math.max(largest, type.primitive() == Scoring.Primitive.NOUL ? 2 : options);
            count += type == QuestionType.MULTI ? Math.max(1, options) : 1;
        }
        var modalities = new HashSet<String>();
        int longestText = 0;
        for (JsonNode variable : definition.path("variables")) {
            String type = variable.path("type").asText();
            if ((type.equals("image") || type.equals("audio") || type.equals("video"))
                    && variable.path("required").asBoolean()) {
                modalities.add(type);
            }
            if (type.equals("string")) {
                longestText = Math.max(longestText, variable.path("max_length").asInt(Variable.DEFAULT_MAX_LENGTH));
            }
        }
        return new ModelFacts.Needs(types, largest, count, modalities, longestText / 4);
    }

    /** The {@code options_undescribed} warnings of a template's questions (their options per call are left out). */
    static List<Warning> undescribed(JsonNode definition) {
        var questions = new ArrayList<Question>();
        definition
                .path("questions")
                .properties()
                .forEach(e -> questions.add(Question.of(
                        e.getKey(),
                        e.getValue(),
                        Question.Origin.TEMPLATE,
                        e.getValue().path("criteria").isTextual())));
        return UndescribedOptions.warnings(questions);
    }

    /**
     * What a caller should know although nothing stops the model: media it cannot read, options set per call, input
     * it may cut.
     */
    static List<String> notes(JsonNode definition, ModelFacts facts) {
        var notes = new ArrayList<String>();
        facts.truncation(of(definition)).ifPresent(notes::add);
        definition.path("variables").properties().forEach(e -> {
            String type = e.getValue().path("type").asText();
            if ((type.equals("image") || type.equals("audio") || type.equals("video"))
                    && !e.getValue().path("required").asBoolean()
                    && !facts.modalities().contains(type)) {
                notes.add("The optional " + type + " variable `" + e.getKey() + "` cannot be read by this model.");
            }
        });
        definition.path("questions").properties().forEach(e -> {
            if (e.getValue().path("criteria").isTextual()) {
                notes.add("`" + e.getKey() + "` takes its options per decision; keep them to at most "
                        + facts.maxOptions() + ".");
            }
        });
        return List.copyOf(notes);
    }
}
