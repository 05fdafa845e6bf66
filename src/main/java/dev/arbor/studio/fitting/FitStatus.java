package dev.arbor.studio.fitting;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** Where a fit stands: queued, then in progress, until it finishes completed, failed or cancelled. */
enum FitStatus {
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

    static FitStatus stored(String text) {
        return Arrays.stream(values())
                .filter(s -> s.wire().equals(text))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("unknown fit status " + text));
    }
}
