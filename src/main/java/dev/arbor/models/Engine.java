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
        EngineKind kind = EngineKind.of(engine)
                .orElseThrow(
                        () -> new IllegalArgumentException("engine '" + engine + "' is not available in this build"));
        return switch (kind) {
            case HASH -> HashEngine.load(options);
            case EMBEDDING -> EmbeddingEngine.load(options);
            case ONNX_CLASSIFIER -> ClassifierEngine.load(options);
            case CAUSAL_LM -> CausalLmEngine.load(options);
            case REMOTE -> RemoteEngine.load(options);
        };
    }
}
