package dev.arbor.notifications;

import static java.util.Objects.requireNonNull;

/** A notification that was not delivered: a code, why, and whether trying again later could deliver it. */
public final class NotificationException extends Exception {
    private final String code;
    private final boolean retryable;

    NotificationException(String code, String message, boolean retryable) {
        super(requireNonNull(message, "message"));
        this.code = requireNonNull(code, "code");
        this.retryable = retryable;
    }

    public String code() {
        return code;
    }

    public boolean retryable() {
        return retryable;
    }
}
