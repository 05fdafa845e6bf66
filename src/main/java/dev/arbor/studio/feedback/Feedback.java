package dev.arbor.studio.feedback;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import org.jspecify.annotations.Nullable;

/**
 * One feedback entry on a decision, as the API shows it: the expected answer to one question (or {@code *} for a
 * rating alone), what the decision answered, whether that was right, and the rating and note sent with it.
 *
 * @param expected the label in canonical form; null for a rating alone
 * @param predicted what the decision answered; null for a rating alone
 * @param correct whether the answer matched the label; null for a rating alone
 * @param createdAt seconds since the epoch
 * @param updatedAt seconds since the epoch
 */
public record Feedback(
        String id,
        String object,
        @JsonProperty("decision_id") String decisionId,
        String question,
        @Nullable JsonNode expected,
        @Nullable JsonNode predicted,
        @Nullable Boolean correct,
        @Nullable Integer rating,
        @Nullable String note,
        String actor,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("updated_at") long updatedAt) {
    public Feedback {
        requireNonNull(id, "id");
        requireNonNull(object, "object");
        requireNonNull(decisionId, "decisionId");
        requireNonNull(question, "question");
        requireNonNull(actor, "actor");
    }

    /** Whether this entry labels a question (rather than only rating the decision). */
    public boolean labelsQuestion() {
        return !question.equals(FeedbackRoutes.RATING_ONLY);
    }
}
