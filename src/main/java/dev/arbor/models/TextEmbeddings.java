package dev.arbor.models;

import dev.arbor.models.engines.EmbeddingEngine;
import dev.arbor.models.engines.Engine;
import dev.arbor.models.engines.EngineKind;
import java.util.List;
import java.util.Map;

/**
 * Sentence embeddings in this process with the bundled MiniLM (all-MiniLM-L6-v2, quantized), the model a fresh server
 * answers {@code /v1/embeddings} with: for features that rank short texts themselves (an agent's tool search), without
 * a deployment or a worker. Vectors are unit length, so a dot product is their cosine. Loaded once, on first use (the
 * load warms the model up, a few seconds); safe to share between threads.
 */
public final class TextEmbeddings {
    private final Engine.Embedder engine;

    private TextEmbeddings(Engine.Embedder engine) {
        this.engine = engine;
    }

    private static final class Bundled {
        static final TextEmbeddings MODEL = load();

        private static TextEmbeddings load() {
            try {
                return new TextEmbeddings((Engine.Embedder) Engine.load(EngineKind.EMBEDDING.wire(), Map.of()));
            } catch (Exception e) {
                throw new IllegalStateException(
                        "the bundled embedding model " + EmbeddingEngine.DEFAULT_BUNDLED + " did not load", e);
            }
        }
    }

    /** The bundled model, loaded on the first call. */
    public static TextEmbeddings bundled() {
        return Bundled.MODEL;
    }

    /** One vector per text, in order. */
    public List<float[]> embed(List<String> texts) {
        try {
            return engine.embed(texts).vectors();
        } catch (Exception e) {
            throw new IllegalStateException("the embedding model failed: " + e.getMessage(), e);
        }
    }
}
