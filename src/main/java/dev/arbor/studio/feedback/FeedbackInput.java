package dev.arbor.studio.feedback;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.Labels;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A feedback body, checked against the decision it labels: {@code expected} and {@code rating} must both be sent
 * ({@code rating} may be null, {@code expected} empty, not both), each expected answer must fit the question the
 * decision answered, and no other field is taken. The body keeps its own rules (a rating that is present but null)
 * that a declared field, where null counts as absent, cannot say.
 *
 * @param entries one per labelled question, or the one rating-only entry
 */
record FeedbackInput(List<FeedbackStore.Entry> entries, Optional<Integer> rating, Optional<String> note) {
    private static final int MAX_NOTE = 2000;

    FeedbackInput {
        entries = List.copyOf(entries);
    }

    /** The body's entries, rating and note; refuses it with every problem found. */
    static FeedbackInput parse(StoredDecision decision, ObjectNode body) {
        var problems = new Problems();
        if (!body.has("expected")) {
            problems.add(
                    ErrorCode.MISSING_FIELD,
                    "expected",
                    "`expected` is required: an object of question key to "
                            + "the right answer ({} when you only rate).");
        }
        if (!body.has("rating")) {
            problems.add(ErrorCode.MISSING_FIELD, "rating", "`rating` is required: 1, -1, or null for no rating.");
        }
        JsonNode rating = body.path("rating");
        if (body.has("rating")
                && !rating.isNull()
                && !(rating.isIntegralNumber()
                        && rating.canConvertToInt()
                        && (rating.intValue() == 1 || rating.intValue() == -1))) {
            problems.add(ErrorCode.INVALID_FIELD, "rating", "`rating` must be 1, -1 or null.");
        }
        JsonNode note = body.path("note");
        if (!note.isMissingNode()
                && !note.isNull()
                && (!note.isTextual() || note.textValue().length() > MAX_NOTE)) {
            problems.add(
                    ErrorCode.INVALID_FIELD, "note", "`note` must be text of at most " + MAX_NOTE + " characters.");
        }
        body.fieldNames().forEachRemaining(name -> {
            if (!List.of("expected", "rating", "note").contains(name)) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        name,
                        "`" + name + "` is not a field of feedback (expected, " + "rating, note).");
            }
        });
        var entries = entries(decision, body.path("expected"), body.has("expected"), problems);
        problems.throwIfAny();
        if (entries.isEmpty() && rating.isNull()) {
            throw ApiException.of(
                    ErrorCode.MISSING_FIELD,
                    "expected",
                    "Feedback needs an expected answer or a " + "rating; both are empty.");
        }
        if (entries.isEmpty()) {
            entries.add(new FeedbackStore.Entry(
                    FeedbackRoutes.RATING_ONLY, Optional.empty(), Optional.empty(), Optional.empty()));
        }
        return new FeedbackInput(
                entries,
                rating.isNull() ? Optional.empty() : Optional.of(rating.asInt()),
                note.isTextual() ? Optional.of(note.textValue()) : Optional.empty());
    }

    /** Each labelled question, checked against the decision's answer to it. */
    private static List<FeedbackStore.Entry> entries(
            StoredDecision decision, JsonNode expected, boolean sent, Problems problems) {
        var entries = new ArrayList<FeedbackStore.Entry>();
        if (!sent) {
            return entries;
        }
        if (!expected.isObject()) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "expected",
                    "`expected` must be an object of question key to the " + "right answer.");
            return entries;
        }
        Map<String, Answer> answers =
                decision.decided().answered().map(Decided.Answered::answers).orElse(Map.of());
        expected.properties().forEach(e -> {
            String param = ParamPath.key("expected", e.getKey());
            Answer answer = answers.get(e.getKey());
            if (answer == null) {
                var keys = new ArrayList<>(answers.keySet());
                problems.add(
                        ErrorCode.INVALID_EXPECTED,
                        param,
                        "`" + e.getKey() + "` is not a question this decision "
                                + "answered"
                                + (keys.isEmpty()
                                        ? " (it has no answers)."
                                        : "; its questions are " + String.join(", ", keys) + "."));
                return;
            }
            switch (Labels.check(answer, e.getValue())) {
                case Labels.Canonical canonical ->
                    entries.add(new FeedbackStore.Entry(
                            e.getKey(),
                            Optional.of(canonical.value()),
                            Optional.of(AnswerCodec.decision(answer)),
                            Optional.of(Labels.correct(answer, canonical.value()))));
                case Labels.Unfit unfit ->
                    problems.add(ErrorCode.INVALID_EXPECTED, param, "`" + param + "` " + unfit.why() + ".");
            }
        });
        return entries;
    }
}
