package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import io.javalin.http.Handler;
import io.javalin.http.HandlerType;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One HTTP operation: the server registers it, and the OpenAPI document describes it, from this same value.
 *
 * @param tag the feature it belongs to, which groups it in the OpenAPI document
 * @param body what the operation takes as its body
 * @param query the query parameters it reads
 * @param headers the request headers it reads, beside the platform's own
 * @param replies what it answers when it succeeds (a failure is always the error envelope)
 */
public record Route(
        HandlerType method,
        String path,
        String tag,
        String summary,
        Body body,
        List<QueryParam> query,
        List<HeaderParam> headers,
        List<Reply> replies,
        Handler handler) {
    /** What an operation reads from its request body. */
    public sealed interface Body {
        /** No body; whatever is sent is ignored. */
        record None() implements Body {}

        /**
         * A JSON object, at most the server's body limit or, where an operation takes media inline, at most
         * {@code maxBytes} when that is larger.
         */
        record Json(OptionalLong maxBytes, Optional<Schema> schema) implements Body {
            public Json {
                requireNonNull(maxBytes, "maxBytes");
                requireNonNull(schema, "schema");
            }
        }

        /**
         * A file of any type instead of JSON, of at most {@code maxBytes}. Its handler streams the body, so neither the
         * server's body limit nor idempotency's body hash touch it.
         */
        record Upload(long maxBytes) implements Body {}
    }

    /**
     * One successful answer: its status and its body by media type (none for 204).
     *
     * @param content the body's shape by media type, such as {@code application/json}
     */
    public record Reply(int status, Map<String, Schema> content) {
        public Reply {
            content = Map.copyOf(content);
        }

        public static Reply json(int status, Schema schema) {
            return new Reply(status, Map.of("application/json", schema));
        }
    }

    public Route {
        requireNonNull(body, "body");
        query = List.copyOf(query);
        headers = List.copyOf(headers);
        replies = List.copyOf(replies);
        requireNonNull(method, "method");
        requireNonNull(path, "path");
        requireNonNull(tag, "tag");
        requireNonNull(summary, "summary");
        requireNonNull(handler, "handler");
        if (!path.startsWith("/")) {
            throw new IllegalArgumentException("path must start with /: " + path);
        }
    }

    /** This operation run by another handler: one that wraps this one's (the audit of a write). */
    public Route withHandler(Handler other) {
        return new Route(method, path, tag, summary, body, query, headers, replies, other);
    }

    /** Who may call it, as the guards decide. */
    public Access access() {
        return Access.of(path);
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
        String resource = path.replaceAll("\\{[^}]+}(?=/)", "item")
                .replaceAll("\\{[^}]+}", "")
                .replaceAll("[^A-Za-z0-9]+", ".")
                .replaceAll("^\\.|\\.$", "");
        return (resource.isEmpty() ? "root" : resource) + "." + verb;
    }
}
