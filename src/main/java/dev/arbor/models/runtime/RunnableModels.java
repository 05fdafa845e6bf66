package dev.arbor.models.runtime;

/** Where the runtime finds the models it runs by id: the registry, which sits above it. */
public interface RunnableModels {
    /** The model as its workers run it, or 404 {@code model_not_found} (at {@code param}) naming the models there are. */
    RunnableModel runnable(String modelId, String param);
}
