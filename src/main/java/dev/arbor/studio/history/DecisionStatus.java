package dev.arbor.studio.history;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Where a decision stands: queued and in progress until it finishes completed, failed or cancelled. */
public enum DecisionStatus {
    QUEUED,
    IN_PROGRESS,
    COMPLETED,
    FAILED,
    CANCELLED;

    /** The two a decision is in before it finishes. */
    public static final List<DecisionStatus> UNFINISHED = List.of(QUEUED, IN_PROGRESS);

    public String wire() {
        return name().toLowerCase(Locale.ROOT);
    }

    public boolean finished() {
        return !UNFINISHED.contains(this);
    }

    public static Optional<DecisionStatus> parse(String text) {
        return Arrays.stream(values()).filter(s -> s.wire().equals(text)).findFirst();
    }

    /** Reads a status the store wrote; anything else is a broken row. */
    static DecisionStatus stored(String text) {
        return parse(text).orElseThrow(() -> new IllegalStateException("unknown decision status " + text));
    }

    /** The wire names of all, in order. */
    public static List<String> wires() {
        return Arrays.stream(values()).map(DecisionStatus::wire).toList();
    }

    /** The wire names of the given statuses, as SQL lists bind them. */
    static List<String> wires(List<DecisionStatus> statuses) {
        return statuses.stream().map(DecisionStatus::wire).toList();
    }
}
