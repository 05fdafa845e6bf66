package dev.arbor.events.providers;

import static java.util.Objects.requireNonNull;

/** What checking a delivery's signature found: valid with one of the secrets, or rejected with a reason. */
sealed interface Verification {
    /** @param secretIndex which of the secrets given matched: 0 the current one, 1 the previous one in a rotation */
    record Valid(int secretIndex) implements Verification {}

    /** @param detail what was wrong, for the delivery log: never a secret or a computed signature */
    record Rejected(Reason reason, String detail) implements Verification {
        public Rejected {
            requireNonNull(reason, "reason");
            requireNonNull(detail, "detail");
        }
    }

    enum Reason {
        /** A header (or the payload field) the scheme reads was not sent. */
        MISSING_HEADER,
        /** It was sent but cannot be read (no timestamp, no signature of the scheme's version). */
        MALFORMED_HEADER,
        /** No secret given makes the signature that was sent. */
        BAD_SIGNATURE,
        /** The signed timestamp is further from now than the scheme allows: a late or replayed delivery. */
        TIMESTAMP_OUTSIDE_TOLERANCE
    }

    static Verification missing(String header) {
        return new Rejected(Reason.MISSING_HEADER, "`" + header + "` was not sent.");
    }

    static Verification malformed(String header, String why) {
        return new Rejected(Reason.MALFORMED_HEADER, "`" + header + "` " + why + ".");
    }

    static Verification badSignature(String header) {
        return new Rejected(
                Reason.BAD_SIGNATURE, "`" + header + "` does not match the body with the connection's secret.");
    }
}
