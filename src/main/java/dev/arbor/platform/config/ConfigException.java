package dev.arbor.platform.config;

import static java.util.Objects.requireNonNull;

/** A setting the server cannot start with; its message is shown to the operator as is. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(requireNonNull(message, "message"));
    }

    @Override
    public String getMessage() {
        return requireNonNull(super.getMessage()); // always given
    }
}
