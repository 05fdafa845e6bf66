package dev.arbor.platform.errors;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * One problem found while checking a request. {@code param} is the path of the field at fault
 * ({@code variables.name}, {@code media[0].file_id}, {@code ["odd key"]}) or null when no single field is.
 */
public record Problem(ErrorCode code, @Nullable String param, String message) {
    public Problem {
        requireNonNull(code, "code");
        requireNonNull(message, "message");
    }
}
