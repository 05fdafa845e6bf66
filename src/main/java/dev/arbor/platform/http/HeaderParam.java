package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import io.javalin.http.Context;
import java.util.Optional;

/**
 * A request header an operation reads, beside the platform's own (authorization, idempotency): declared once, read
 * through this value, and described in the OpenAPI document from the same value.
 */
public record HeaderParam(String name, Schema schema, String description) {
    public HeaderParam {
        requireNonNull(name, "name");
        requireNonNull(schema, "schema");
        requireNonNull(description, "description");
    }

    /** The value sent, if any, without surrounding spaces; a blank value counts as none. */
    public Optional<String> read(Context ctx) {
        return Optional.ofNullable(ctx.header(name)).map(String::strip).filter(value -> !value.isEmpty());
    }
}
