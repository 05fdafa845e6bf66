package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What calling a cloud model takes: its OpenAI-compatible API's base URL ({@code https://api.example.com/v1}), the
 * endpoint's name for the model, its key, opened, and the timeouts it was registered with.
 *
 * @param modelId the model's id in the registry
 * @param timeoutsMillis its own timeouts in milliseconds, by name ({@link #CONNECT_TIMEOUT}, ...); those left out are
 *     the server's
 */
public record RemoteEndpoint(
        String modelId, URI baseUrl, String remoteModel, Optional<String> apiKey, Map<String, Long> timeoutsMillis) {
    /** The names of a cloud model's timeouts, as {@code POST /models} takes them and a router step names them. */
    public static final String CONNECT_TIMEOUT = "connect_timeout_ms";

    public static final String FIRST_BYTE_TIMEOUT = "first_byte_timeout_ms";
    public static final String IDLE_TIMEOUT = "idle_timeout_ms";
    public static final String TOTAL_TIMEOUT = "total_timeout_ms";

    public RemoteEndpoint {
        requireNonNull(modelId, "modelId");
        requireNonNull(baseUrl, "baseUrl");
        requireNonNull(remoteModel, "remoteModel");
        requireNonNull(apiKey, "apiKey");
        timeoutsMillis = Map.copyOf(timeoutsMillis);
    }

    /** An endpoint with the server's timeouts. */
    public RemoteEndpoint(String modelId, URI baseUrl, String remoteModel, Optional<String> apiKey) {
        this(modelId, baseUrl, remoteModel, apiKey, Map.of());
    }

    /** The timeouts among a model's options (each a number of milliseconds), by name. */
    static Map<String, Long> timeouts(Map<String, String> options) {
        var timeouts = new java.util.HashMap<String, Long>();
        for (String name : List.of(CONNECT_TIMEOUT, FIRST_BYTE_TIMEOUT, IDLE_TIMEOUT, TOTAL_TIMEOUT)) {
            String value = options.get(name);
            if (value != null) {
                timeouts.put(name, Long.parseLong(value));
            }
        }
        return timeouts;
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
