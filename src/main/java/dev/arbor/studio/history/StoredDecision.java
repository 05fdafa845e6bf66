package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.studio.questions.AnswerRow;
import java.util.List;
import java.util.Optional;

/**
 * A decision as history keeps it: the columns history filters on, the decision as the API shows it ({@code decided},
 * without input, metadata and pin; its {@code body} column), and the input it read when that is kept.
 *
 * @param rows the answers in the form history indexes them
 * @param secrets the HMAC of each sensitive variable, by name
 * @param searchText what full-text search finds it by (kept only with the full input)
 */
public record StoredDecision(
        String id,
        DecisionStatus status,
        StoreLevel storage,
        String surface,
        String endpoint,
        String requestId,
        Optional<String> templateId,
        Optional<Integer> templateVersion,
        Optional<String> model,
        Optional<Boolean> act,
        Optional<Double> minCertainty,
        Optional<String> errorCode,
        boolean pinned,
        ObjectNode metadata,
        Optional<String> rerunOf,
        long createdAtMillis,
        Optional<Long> completedAtMillis,
        Optional<Double> totalMs,
        Decided decided,
        Optional<DecisionInput> input,
        List<AnswerRow> rows,
        ObjectNode secrets,
        Optional<String> searchText) {
    public StoredDecision {
        requireNonNull(id, "id");
        requireNonNull(status, "status");
        requireNonNull(storage, "storage");
        requireNonNull(metadata, "metadata");
        requireNonNull(decided, "decided");
        requireNonNull(input, "input");
        rows = List.copyOf(rows);
        requireNonNull(secrets, "secrets");
        requireNonNull(searchText, "searchText");
    }

    /** This decision with another input (the same input read again, or redacted). */
    StoredDecision withInput(Optional<DecisionInput> other) {
        return new StoredDecision(
                id,
                status,
                storage,
                surface,
                endpoint,
                requestId,
                templateId,
                templateVersion,
                model,
                act,
                minCertainty,
                errorCode,
                pinned,
                metadata,
                rerunOf,
                createdAtMillis,
                completedAtMillis,
                totalMs,
                decided,
                other,
                rows,
                secrets,
                searchText);
    }

    public boolean finished() {
        return status.finished();
    }
}
