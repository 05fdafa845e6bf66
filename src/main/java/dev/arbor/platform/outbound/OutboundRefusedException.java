package dev.arbor.platform.outbound;

/** An outbound call that the SSRF policy refused before any byte was sent. */
public final class OutboundRefusedException extends RuntimeException {
    public OutboundRefusedException(String message) {
        super(message);
    }
}
