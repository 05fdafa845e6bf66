package dev.arbor.models.engines;

import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

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

    /** An engine that also turns texts into vectors (the embedding engine). */
    interface Embedder {
        default ReplicaSet.Embeddings embed(List<String> inputs) throws Exception {
            return embed(inputs, () -> false);
        }

        /** Embeds, stopping between inputs once the caller has {@code givenUp} (a {@link TimeoutException}). */
        ReplicaSet.Embeddings embed(List<String> inputs, BooleanSupplier givenUp) throws Exception;
    }

    /** An engine that also writes text (causal language models), handing each piece to {@code deltas} as it comes. */
    interface Generator {
        ReplicaSet.Generation generate(ReplicaSet.GenerationRequest request, Consumer<String> deltas) throws Exception;
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
