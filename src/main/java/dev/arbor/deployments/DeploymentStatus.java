package dev.arbor.deployments;

import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;

/**
 * Where a deployment stands: {@code pending} (stored, nothing started), {@code deploying} (replicas or pods starting),
 * {@code running} (every replica asked for is ready), {@code scaling} (the count changes; the ready ones serve),
 * {@code failed} (with the reason) and {@code deleting} (its replicas or objects going; then the row is gone).
 */
enum DeploymentStatus {
    PENDING,
    DEPLOYING,
    RUNNING,
    SCALING,
    FAILED,
    DELETING;

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Optional<DeploymentStatus> of(String wire) {
        return Arrays.stream(values()).filter(s -> s.wire().equals(wire)).findFirst();
    }

    /** Whether the deployment answers requests in this status. */
    boolean serves() {
        return this == RUNNING || this == SCALING;
    }

    /** Whether the deployment serves or is on its way to: neither failed nor being deleted. */
    boolean live() {
        return this != FAILED && this != DELETING;
    }

    /** Whether the work of a deploy or a scale is over. */
    boolean settled() {
        return this == RUNNING || this == FAILED;
    }
}
