package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A model in the registry.
 *
 * @param source {@code builtin} (the catalog), or where it was added from: {@code model_hub}, {@code url},
 *     {@code local}, {@code cloud}
 * @param uri what it was added from: a repository, a URL, a folder; empty for built-in models
 * @param engine how it runs: {@code embedding}, {@code onnx-classifier}, {@code causal-lm}, {@code remote},
 *     {@code hash}
 * @param path the folder of its files, when they are not built in
 * @param status {@code not_downloaded}, {@code downloading}, {@code downloaded} or {@code failed} (a download
 *     that failed, with its {@code error}), before the runtime's own ({@code loading}, {@code loaded})
 */
public record Model(String id, String name, String source, String uri, String engine, ModelFacts facts,
                    Optional<Path> path, long sizeBytes, String status, Optional<String> error) {
    public Model {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(source, "source");
        requireNonNull(uri, "uri");
        requireNonNull(engine, "engine");
        requireNonNull(facts, "facts");
        requireNonNull(path, "path");
        requireNonNull(status, "status");
        requireNonNull(error, "error");
    }

    Model withStatus(String newStatus, Optional<String> newError, long newSize) {
        return new Model(id, name, source, uri, engine, facts, path, newSize, newStatus, newError);
    }

    boolean downloaded() {
        return status.equals("downloaded");
    }

    boolean builtIn() {
        return source.equals("builtin");
    }

    /** The model as the API shows it, with its status at run time. */
    Map<String, Object> toJson(String currentStatus) {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", id);
        json.put("object", "model");
        json.put("name", name);
        json.put("source", source);
        json.put("uri", builtIn() ? null : uri);
        json.put("engine", engine);
        json.put("modalities", facts.modalities().stream().sorted(Models::modalityOrder).toList());
        json.put("types", facts.types().stream().sorted().toList());
        json.put("max_options", facts.maxOptions());
        json.put("max_questions", facts.maxQuestions());
        json.put("context_tokens", facts.contextTokens());
        json.put("notes", facts.notes());
        json.put("size_bytes", sizeBytes);
        json.put("status", currentStatus);
        json.put("error", error.orElse(null));
        return json;
    }
}
