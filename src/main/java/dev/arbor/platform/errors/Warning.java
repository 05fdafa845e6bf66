package dev.arbor.platform.errors;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/** A non-fatal problem, returned beside a successful answer. */
public record Warning(
        WarningCode code, String message, @Nullable String param) {
    public Warning {
        requireNonNull(code, "code");
        requireNonNull(message, "message");
    }
}
