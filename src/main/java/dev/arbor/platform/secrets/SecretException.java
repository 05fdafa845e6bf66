package dev.arbor.platform.secrets;

/** A sealed secret that cannot be opened: another key, another record, or damaged. Never carries the secret. */
final class SecretException extends RuntimeException {
    public SecretException(String message) {
        super(message);
    }
}
