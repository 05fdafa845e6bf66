package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Locale;
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
 * @param options what its engine is told besides its files, such as a remote endpoint's name for the model
 * @param path the folder of its files, when they are not built in
 * @param status {@code not_downloaded}, {@code downloading}, {@code downloaded} or {@code failed} (a download
 *     that failed, with its {@code error}), before the runtime's own ({@code loading}, {@code loaded})
 * @param apiKey the key of a remote endpoint, sealed (never shown; the worker gets it opened, in its environment)
 */
public record Model(
        String id,
        String name,
        String source,
        String uri,
        String engine,
        ModelFacts facts,
        Map<String, String> options,
        Optional<Path> path,
        long sizeBytes,
        String status,
        Optional<String> error,
        Optional<String> apiKey) {
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
        options = Map.copyOf(options);
        requireNonNull(apiKey, "apiKey");
    }

    @Override
    public String toString() {
        return "Model[" + id + ", " + engine + ", " + status + "]"; // never the sealed key, even in a log line
    }

    Model withStatus(String newStatus, Optional<String> newError, long newSize) {
        return new Model(id, name, source, uri, engine, facts, options, path, newSize, newStatus, newError, apiKey);
    }

    Model withApiKey(Optional<String> sealed) {
        return new Model(id, name, source, uri, engine, facts, options, path, sizeBytes, status, error, sealed);
    }

    boolean downloaded() {
        return status.equals("downloaded");
    }

    boolean builtIn() {
        return source.equals("builtin");
    }

    /**
     * The files' format, as a serving image reads them: {@code gguf} for a {@code .gguf} file or a repository named
     * so (as GGUF repositories are), {@code onnx} for the embedding and classifier engines, {@code remote} for a model
     * behind an endpoint (no files), else {@code safetensors} weights.
     */
    public String format() {
        if (uri.toLowerCase(Locale.ROOT).contains("gguf")) {
            return "gguf";
        }
        return switch (engine) {
            case "embedding", "onnx-classifier" -> "onnx";
            case "remote" -> "remote";
            default -> "safetensors";
        };
    }
}
