package dev.arbor.studio.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/**
 * The one reading and writing of a {@link TemplateDefinition}: its JSON is the normal form, the seven fields in a
 * fixed order with every default written out, so that writing what was read gives the same text (and the same
 * content hash). Reading takes the defaults for a field a stored definition lacks.
 */
public final class TemplateDefinitionCodec {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private TemplateDefinitionCodec() {}

    /** Reads a definition in normal form, as stored or as the validator made it. */
    public static TemplateDefinition read(JsonNode json) {
        var modalities = new ArrayList<String>();
        json.path("modalities").forEach(m -> modalities.add(m.asText()));
        var variables = new LinkedHashMap<String, Variable>();
        json.path("variables").properties().forEach(e -> {
            if (e.getValue() instanceof ObjectNode spec && spec.get("type") instanceof JsonNode type) {
                VariableType.parse(type.asText())
                        .ifPresent(t -> variables.put(e.getKey(), new Variable(e.getKey(), t, spec.deepCopy())));
            }
        });
        var questions = new LinkedHashMap<String, TemplateQuestion>();
        json.path("questions")
                .properties()
                .forEach(e -> TemplateQuestion.read(e.getValue()).ifPresent(q -> questions.put(e.getKey(), q)));
        JsonNode state = json.get("state") == null ? NullNode.getInstance() : json.get("state");
        JsonNode model = json.path("model");
        JsonNode settings = json.get("settings");
        return new TemplateDefinition(
                modalities,
                variables,
                state,
                questions,
                model.isTextual() ? Optional.of(model.textValue()) : Optional.empty(),
                settings instanceof ObjectNode object ? object : Json.object(),
                extensions(json.path("extensions")));
    }

    /** The definition's normal form: the stored column and the API's definition fields. */
    public static ObjectNode write(TemplateDefinition definition) {
        ObjectNode json = Json.object();
        json.set("modalities", Json.mapper().<JsonNode>valueToTree(definition.modalities()));
        ObjectNode variables = json.putObject("variables");
        definition
                .variables()
                .forEach((name, variable) -> variables.set(name, variable.spec().deepCopy()));
        json.set("state", definition.state());
        ObjectNode questions = json.putObject("questions");
        definition.questions().forEach((key, question) -> questions.set(key, question.normal()));
        json.set("model", definition.model().<JsonNode>map(NODES::textNode).orElse(NullNode.getInstance()));
        json.set("settings", definition.settings());
        ObjectNode extensions = json.putObject("extensions");
        ExtensionPolicy policy = definition.extensions();
        extensions.put("questions", policy.questions());
        extensions.put("max_questions", policy.maxQuestions());
        extensions.set("options", list(policy.options()));
        extensions.set("skip", list(policy.skip()));
        return json;
    }

    private static ExtensionPolicy extensions(JsonNode json) {
        ExtensionPolicy defaults = ExtensionPolicy.defaults();
        return new ExtensionPolicy(
                json.path("questions").asBoolean(defaults.questions()),
                json.path("max_questions").asInt(defaults.maxQuestions()),
                questionList(json.path("options")),
                questionList(json.path("skip")));
    }

    private static ExtensionPolicy.QuestionList questionList(JsonNode json) {
        if (json.isBoolean() && json.booleanValue()) {
            return ExtensionPolicy.QuestionList.every();
        }
        List<String> keys = new ArrayList<>();
        json.forEach(key -> keys.add(key.asText()));
        return ExtensionPolicy.QuestionList.keys(keys);
    }

    private static JsonNode list(ExtensionPolicy.QuestionList list) {
        return list.all() ? NODES.booleanNode(true) : Json.mapper().<JsonNode>valueToTree(list.keys());
    }
}
