package dev.arbor.studio.definitions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A template version's definition, in normal form: what {@link dev.arbor.studio.definitions.checks.DefinitionValidator} makes of a request and what the
 * template tables keep. {@link TemplateDefinitionCodec} reads and writes it; its JSON is the stored column and the
 * API's definition fields, in this order.
 *
 * @param modalities what the decision may carry besides text ({@code text}, {@code image}, ...)
 * @param variables the declared variables in declaration order
 * @param state the state template (text, object or list with placeholders), or a null node when the caller sends the
 *     state itself
 * @param questions the questions by key, in the order written
 * @param model the model the template names, if it names one
 * @param settings the settings as written ({@code act_threshold}, {@code temperature}, {@code multi_threshold},
 *     {@code questions}, {@code models}): the settings ladder reads them
 * @param extensions what a decision may change of the questions
 */
public record TemplateDefinition(
        List<String> modalities,
        Map<String, Variable> variables,
        JsonNode state,
        Map<String, TemplateQuestion> questions,
        Optional<String> model,
        ObjectNode settings,
        ExtensionPolicy extensions) {
    public TemplateDefinition {
        modalities = List.copyOf(modalities);
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        state = state.deepCopy();
        questions = Collections.unmodifiableMap(new LinkedHashMap<>(questions));
        requireNonNull(model, "model");
        settings = settings.deepCopy();
        requireNonNull(extensions, "extensions");
    }

    @Override
    public JsonNode state() {
        return state.deepCopy();
    }

    @Override
    public ObjectNode settings() {
        return settings.deepCopy();
    }

    /**
     * This definition with a decision's extra questions after its own, so that the variables fill them too.
     *
     * @param extras checked questions in normal form, by key
     */
    public TemplateDefinition withExtraQuestions(ObjectNode extras) {
        var all = new LinkedHashMap<>(questions);
        extras.properties().forEach(e -> TemplateQuestion.read(e.getValue()).ifPresent(q -> all.put(e.getKey(), q)));
        return new TemplateDefinition(modalities, variables, state, all, model, settings, extensions);
    }

    /** Whether the template declares variables (then decisions send variables, not a state). */
    public boolean declaresVariables() {
        return !variables.isEmpty();
    }

    /** The fitted head the settings name for one question under one model, if they name one. */
    public Optional<String> head(String modelId, String question) {
        JsonNode head = settings.path("models")
                .path(modelId)
                .path("questions")
                .path(question)
                .path("head");
        return head.isTextual() ? Optional.of(head.textValue()) : Optional.empty();
    }

    /** Every fitted head the settings name, under any model. */
    public Set<String> heads() {
        var heads = new LinkedHashSet<String>();
        settings.path("models")
                .forEach(perModel -> perModel.path("questions").forEach(question -> {
                    if (question.path("head").isTextual()) {
                        heads.add(question.path("head").textValue());
                    }
                }));
        return Set.copyOf(heads);
    }
}
