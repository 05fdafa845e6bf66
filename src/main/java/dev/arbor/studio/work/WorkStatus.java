package dev.arbor.studio.work;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Where the studio's background work (an eval, a fit) stands: queued, then in progress, until it finishes completed,
 * failed or cancelled.
 */
public enum WorkStatus {
    QUEUED,
    IN_PROGRESS,
    COMPLETED,
    FAILED,
    CANCELLED;

    public static final List<String> UNFINISHED = List.of(QUEUED.wire(), IN_PROGRESS.wire());

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean finished() {
        return this != QUEUED && this != IN_PROGRESS;
    }

    /** Reads a status the store wrote; anything else is a broken row. */
    public static WorkStatus stored(String text) {
        return Arrays.stream(values())
                .filter(s -> s.wire().equals(text))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown status " + text));
    }
}
