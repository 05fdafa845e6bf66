package dev.arbor.platform.http;

import static java.util.Objects.requireNonNull;

import io.javalin.http.Context;
import java.util.Optional;

/**
 * A query parameter an operation reads: declared once, its handler reads it through this value and the OpenAPI
 * document describes it from the same value.
 */
public record QueryParam(String name, Schema schema, String description) {
    public QueryParam {
        requireNonNull(name, "name");
        requireNonNull(schema, "schema");
        requireNonNull(description, "description");
    }

    /** The value sent, if any (blank counts as sent: the handler decides what an empty value means). */
    public Optional<String> read(Context ctx) {
        return Optional.ofNullable(ctx.queryParam(name));
    }
}
