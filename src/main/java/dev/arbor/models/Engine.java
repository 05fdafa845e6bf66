package dev.arbor.models;

import java.util.Map;

/**
 * A loaded model inside a worker process: it scores every option of every question. Public so that benchmarks can
 * call an engine in their own process, the baseline a decision through the server is measured against.
 */
public sealed interface Engine permits CausalLmEngine, ClassifierEngine, EmbeddingEngine, HashEngine, RemoteEngine {
    Scoring.Answer score(Scoring.Request request) throws Exception;

    /** Whether answers may run at the same time; otherwise the worker answers one request at a time. */
    default boolean concurrent() {
        return false;
    }

    /** Loads the engine a model names; a failure here is the model's load failure. */
    public static Engine load(String engine, Map<String, String> options) throws Exception {
        return switch (engine) {
            case "hash" -> HashEngine.load(options);
            case "embedding" -> EmbeddingEngine.load(options);
            case "onnx-classifier" -> ClassifierEngine.load(options);
            case "causal-lm" -> CausalLmEngine.load(options);
            case "remote" -> RemoteEngine.load(options);
            default -> throw new IllegalArgumentException("engine '" + engine + "' is not available in this build");
        };
    }
}
