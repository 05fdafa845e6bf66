package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.OptionalLong;

/**
 * One HTTP operation: the server registers it, and the OpenAPI document describes it, from this same value.
 *
 * @param tag the feature it belongs to, which groups it in the OpenAPI document
 * @param body what the operation takes as its body
 */
public record Route(HandlerType method, String path, String tag, String summary, Body body, Handler handler) {
    /** What an operation reads from its request body. */
    public sealed interface Body {
        /** No body; whatever is sent is ignored. */
        record None() implements Body {}

        /**
         * A JSON object, at most the server's body limit or, where an operation takes media inline, at most
         * {@code maxBytes} when that is larger.
         */
        record Json(OptionalLong maxBytes) implements Body {
            public Json {
                requireNonNull(maxBytes, "maxBytes");
            }
        }

        /**
         * A file of any type instead of JSON, of at most {@code maxBytes}. Its handler streams the body, so neither the
         * server's body limit nor idempotency's body hash touch it.
         */
        record Upload(long maxBytes) implements Body {}
    }

    public Route {
        requireNonNull(body, "body");
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(tag, "tag");
        requireNonNull(summary, "summary");
        requireNonNull(handler, "handler");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /: " + path);
        }
    }

    public boolean isUpload() {
        return body instanceof Body.Upload;
    }

    /** The most bytes this operation reads, where it sets its own limit instead of the server's. */
    public OptionalLong bodyLimit() {
        return switch (body) {
            case Body.Upload upload -> OptionalLong.of(upload.maxBytes());
            case Body.Json json -> json.maxBytes();
            case Body.None none -> OptionalLong.empty();
        };
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
