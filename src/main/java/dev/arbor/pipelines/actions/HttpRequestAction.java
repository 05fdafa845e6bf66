package dev.arbor.pipelines.actions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.outbound.OutboundClient;
import dev.arbor.platform.outbound.OutboundPolicy;
import dev.arbor.platform.outbound.OutboundRefusedException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The HTTP Request action, through the server's outbound client (private addresses refused unless allowed, every
 * redirect checked again). A response outside 2xx fails the step: 408, 429 and 5xx may be retried, other 4xx not.
 * Outputs: {@code status_code}, {@code response_body} (parsed when it is JSON, text otherwise, at most 1 MB) and
 * {@code headers} (the first value of each, names in lower case).
 */
final class HttpRequestAction {
    static final int MAX_BODY_BYTES = 1 << 20;
    private static final Set<String> UNSENDABLE_HEADERS =
            Set.of("host", "content-length", "connection", "upgrade", "expect", "transfer-encoding");

    private final OutboundClient client;

    HttpRequestAction(OutboundClient client) {
        this.client = requireNonNull(client, "client");
    }

    Outcome run(ObjectNode params) throws InterruptedException {
        String method = params.path("method").asText("GET");
        URI uri;
        try {
            uri = URI.create(params.path("url").asText());
        } catch (IllegalArgumentException e) {
            return new Outcome.Failed("invalid_params", "The url is not a URL: " + e.getMessage(), false);
        }
        // a template may render a url the save could not see: refused as the save refuses one written out
        Optional<String> unjudgeable = OutboundPolicy.unjudgeable(uri.toString());
        if (unjudgeable.isPresent()) {
            return new Outcome.Failed("url_not_allowed", "The url cannot be called: " + unjudgeable.get() + ".", false);
        }
        var request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(params.path("timeout_seconds").asLong(30)));
        for (var header : params.path("headers").properties()) {
            if (UNSENDABLE_HEADERS.contains(header.getKey().toLowerCase(Locale.ROOT))) {
                return new Outcome.Failed(
                        "invalid_params", "The header " + header.getKey() + " is set by the client itself.", false);
            }
            request.header(
                    header.getKey(),
                    header.getValue().isTextual()
                            ? header.getValue().textValue()
                            : header.getValue().toString());
        }
        JsonNode body = params.path("body");
        if (method.equals("GET") || body.isMissingNode() || body.isNull()) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            if (params.path("headers").properties().stream()
                    .noneMatch(h -> h.getKey().equalsIgnoreCase("content-type"))) {
                request.header("content-type", "application/json");
            }
            request.method(
                    method,
                    HttpRequest.BodyPublishers.ofByteArray(
                            body.isTextual() ? body.textValue().getBytes(StandardCharsets.UTF_8) : Json.write(body)));
        }
        HttpResponse<InputStream> response;
        byte[] bytes;
        try {
            response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream in = response.body()) {
                bytes = in.readNBytes(MAX_BODY_BYTES + 1);
            }
        } catch (OutboundRefusedException e) {
            return new Outcome.Failed("url_not_allowed", e.getMessage(), false);
        } catch (IOException e) {
            return new Outcome.Failed("http_failed", uri.getHost() + " could not be reached: " + e, true);
        }
        if (bytes.length > MAX_BODY_BYTES) {
            return new Outcome.Failed(
                    "response_too_large", "The response body is larger than " + MAX_BODY_BYTES + " bytes.", false);
        }
        int status = response.statusCode();
        JsonNode responseBody =
                body(bytes, response.headers().firstValue("content-type").orElse(""));
        if (status < 200 || status > 299) {
            String excerpt = new String(bytes, 0, Math.min(bytes.length, 500), StandardCharsets.UTF_8);
            return new Outcome.Failed(
                    "http_status",
                    method + " " + uri + " answered " + status + ": " + excerpt,
                    status == 408 || status == 429 || status >= 500);
        }
        ObjectNode outputs = Json.object().put("status_code", status);
        outputs.set("response_body", responseBody);
        ObjectNode headers = outputs.putObject("headers");
        response.headers().map().forEach((name, values) -> {
            if (!name.startsWith(":") && !values.isEmpty()) {
                headers.put(name.toLowerCase(Locale.ROOT), values.getFirst());
            }
        });
        return new Outcome.Done(outputs);
    }

    private static JsonNode body(byte[] bytes, String contentType) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (contentType.toLowerCase(Locale.ROOT).contains("json") && !text.isBlank()) {
            try {
                return Json.read(text);
            } catch (RuntimeException e) {
                return TextNode.valueOf(text); // said JSON, is not: the text as it came
            }
        }
        return TextNode.valueOf(text);
    }
}
