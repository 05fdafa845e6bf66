package dev.arbor.platform.config;

/** A setting the server cannot start with; its message is shown to the operator as is. */
public final class ConfigException extends RuntimeException {
    public ConfigException(String message) {
        super(message);
    }
}
