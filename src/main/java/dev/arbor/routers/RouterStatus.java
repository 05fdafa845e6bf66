package dev.arbor.routers;

import java.util.Locale;
import java.util.Optional;

/** A router's state: only an active router serves requests, and only a complete graph may be active. */
enum RouterStatus {
    DRAFT,
    ACTIVE,
    INACTIVE;

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<RouterStatus> of(String wire) {
        for (RouterStatus status : values()) {
            if (status.wire().equals(wire)) {
                return Optional.of(status);
            }
        }
        return Optional.empty();
    }
}
