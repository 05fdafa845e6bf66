package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.Optional;

/**
 * What calling a cloud model takes: its OpenAI-compatible API's base URL ({@code https://api.example.com/v1}), the
 * endpoint's name for the model, and its key, opened.
 *
 * @param modelId the model's id in the registry
 */
public record RemoteEndpoint(String modelId, URI baseUrl, String remoteModel, Optional<String> apiKey) {
    public RemoteEndpoint {
        requireNonNull(modelId, "modelId");
        requireNonNull(baseUrl, "baseUrl");
        requireNonNull(remoteModel, "remoteModel");
        requireNonNull(apiKey, "apiKey");
    }

    /** The URL of one operation of the API, such as {@code chat/completions}. */
    public URI operation(String path) {
        String base = baseUrl.toString();
        return URI.create((base.endsWith("/") ? base : base + "/") + path);
    }

    @Override
    public String toString() {
        return "RemoteEndpoint[" + modelId + ", " + baseUrl + ", " + remoteModel + "]"; // never the key
    }
}
