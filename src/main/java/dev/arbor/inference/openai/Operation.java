package dev.arbor.inference.openai;

/** The OpenAI-compatible operations a model endpoint serves, each at its path under the API's base URL. */
public enum Operation {
    CHAT_COMPLETIONS("chat/completions"),
    COMPLETIONS("completions"),
    EMBEDDINGS("embeddings");

    private final String path;

    Operation(String path) {
        this.path = path;
    }

    /** Under the API's base URL: {@code chat/completions}. */
    public String path() {
        return path;
    }
}
