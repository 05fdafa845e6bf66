package common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** The set-up calls benches make to the server they started: JSON in, JSON out, over HTTP/1.1. */
public final class JsonCalls {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private JsonCalls() {}

    /** Sends {@code body} (none when null) and reads the answer, whatever its status. */
    public static JsonNode send(String method, String url, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(url))
                .header("content-type", "application/json")
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        return JSON.readTree(
                HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }
}
