package dev.arbor.studio.evals;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Where an eval stands: queued, then in progress, until it finishes completed, failed or cancelled. */
enum EvalStatus {
    QUEUED,
    IN_PROGRESS,
    COMPLETED,
    FAILED,
    CANCELLED;

    static final List<String> UNFINISHED = List.of(QUEUED.wire(), IN_PROGRESS.wire());

    String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    boolean finished() {
        return this != QUEUED && this != IN_PROGRESS;
    }

    /** Reads a status the store wrote; anything else is a broken row. */
    static EvalStatus stored(String text) {
        return Arrays.stream(values())
                .filter(s -> s.wire().equals(text))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown eval status " + text));
    }
}
