package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.OptionalLong;

/**
 * One HTTP operation: the server registers it, and the OpenAPI document describes it, from this same value.
 *
 * @param tag the feature it belongs to, which groups it in the OpenAPI document
 * @param bodyRequired whether the operation takes a JSON object body
 * @param uploadLimit for an upload, which takes a file of any type instead of JSON, the most bytes it takes; its
 *     handler streams the body, so neither the server's JSON body limit nor idempotency's body hash touch it
 */
public record Route(HandlerType method, String path, String tag, String summary, boolean bodyRequired,
                    OptionalLong uploadLimit, Handler handler) {
    public Route {
        requireNonNull(uploadLimit, "uploadLimit");
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(tag, "tag");
        requireNonNull(summary, "summary");
        requireNonNull(handler, "handler");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /: " + path);
        }
    }

    /** A stable id for the OpenAPI document, e.g. {@code projects.get}. */
    public String operationId() {
        String verb = switch (method.name()) {
            case "GET" -> path.endsWith("}") ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "put";
            case "PATCH" -> "update";
            case "DELETE" -> "delete";
            default -> method.name().toLowerCase(java.util.Locale.ROOT);
        };
        // a path parameter with more path after it reads "item": /decisions/{id}/redact is not /decisions/redact
        String resource = path.replaceAll("\\{[^}]+}(?=/)", "item").replaceAll("\\{[^}]+}", "")
                .replaceAll("[^A-Za-z0-9]+", ".").replaceAll("^\\.|\\.$", "");
        return (resource.isEmpty() ? "root" : resource) + "." + verb;
    }
}
