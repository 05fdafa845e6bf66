package dev.arbor.platform.errors;

import static java.util.Objects.requireNonNull;

/** A non-fatal problem, returned beside a successful answer. */
public record Warning(WarningCode code, String message, String param) {
    public Warning {
        requireNonNull(code, "code");
        requireNonNull(message, "message");
    }
}
