package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

/** An outbound call that the SSRF policy refused before any byte was sent. */
public final class OutboundRefusedException extends RuntimeException {
    public OutboundRefusedException(String message) {
        super(requireNonNull(message, "message"));
    }

    @Override
    public String getMessage() {
        return requireNonNull(super.getMessage()); // always given
    }
}
