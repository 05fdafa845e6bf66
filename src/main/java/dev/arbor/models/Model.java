package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A model in the registry.
 *
 * @param engine how it runs: {@code embedding}, {@code onnx-classifier}, {@code causal-lm}, {@code remote},
 *     {@code hash}
 * @param status {@code not_downloaded}, {@code downloading}, {@code downloaded}, {@code loading}, {@code loaded} or
 *     {@code failed}
 */
public record Model(String id, String name, String engine, ModelFacts facts, String status) {
    public Model {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(engine, "engine");
        requireNonNull(facts, "facts");
        requireNonNull(status, "status");
    }

    /** The model as the API shows it, with its status at run time. */
    Map<String, Object> toJson(String currentStatus) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", id);
        json.put("object", "model");
        json.put("name", name);
        json.put("engine", engine);
        json.put("modalities", facts.modalities().stream().sorted(Models::modalityOrder).toList());
        json.put("types", facts.types().stream().sorted().toList());
        json.put("max_options", facts.maxOptions());
        json.put("max_questions", facts.maxQuestions());
        json.put("context_tokens", facts.contextTokens());
        json.put("notes", facts.notes());
        json.put("status", currentStatus);
        return json;
    }
}
