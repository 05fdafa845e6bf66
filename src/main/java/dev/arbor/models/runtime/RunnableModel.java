package dev.arbor.models.runtime;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * A model of the registry as its workers run it: what the runtime puts on a worker's command line and in its
 * environment, and whether its files are here to run.
 *
 * @param engine how it runs: {@code embedding}, {@code onnx-classifier}, {@code causal-lm}, {@code remote},
 *     {@code hash}
 * @param options what its engine is told besides its files (a worker's load options win over these)
 * @param path the folder of its files, when they are not built in
 * @param url the endpoint a remote model calls; empty for any other engine
 * @param status its files' status in the registry: {@code downloaded} when it can run
 * @param error why its download failed, when it did
 * @param environment what its worker finds in its environment: the opened key of a remote endpoint, never on its
 *     command line
 */
public record RunnableModel(
        String id,
        String engine,
        Map<String, String> options,
        Optional<Path> path,
        Optional<String> url,
        String status,
        Optional<String> error,
        Map<String, String> environment) {
    public RunnableModel {
        requireNonNull(id, "id");
        requireNonNull(engine, "engine");
        options = Map.copyOf(options);
        requireNonNull(path, "path");
        requireNonNull(url, "url");
        requireNonNull(status, "status");
        requireNonNull(error, "error");
        environment = Map.copyOf(environment);
    }

    boolean downloaded() {
        return status.equals("downloaded");
    }

    @Override
    public String toString() {
        return "RunnableModel[" + id + ", " + engine + ", " + status + "]"; // never the environment's key
    }
}
