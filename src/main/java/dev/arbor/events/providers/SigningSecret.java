package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/** A connection's signing secret or shared token; its text never shows in logs or messages. */
public record SigningSecret(String value) {
    public SigningSecret {
        requireNonNull(value, "value");
    }

    byte[] getBytes() {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "SigningSecret[hidden]";
    }
}
