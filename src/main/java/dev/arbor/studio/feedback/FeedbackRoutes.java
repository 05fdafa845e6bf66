package dev.arbor.studio.feedback;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.questions.AnswerCodec;
import dev.arbor.studio.questions.Labels;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Feedback on decisions: the expected answer per question (checked and made canonical against the stored answer,
 * with whether the decision got it right) and a rating. One entry per decision, question and actor: posting again
 * updates it. A rating with no labelled question is kept under the question {@code *}.
 */
public final class FeedbackRoutes {
    static final String ACTOR = "local";
    static final String RATING_ONLY = "*";
    private static final int MAX_NOTE = 2000;

    private final FeedbackStore store;
    private final HistoryStore decisions;
    private final Clock clock;

    public FeedbackRoutes(FeedbackStore store, HistoryStore decisions, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.decisions = requireNonNull(decisions, "decisions");
        this.clock = requireNonNull(clock, "clock");
    }

    public void addTo(Routes routes) {
        routes.group("studio.feedback")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post(
                        "/v1/studio/decisions/{decision_id}/feedback",
                        "Label a decision: expected answers and a rating",
                        this::post)
                .body(FeedbackShapes.FEEDBACK_IN)
                .ok(Schema.list(FeedbackShapes.FEEDBACK))
                .get("/v1/studio/decisions/{decision_id}/feedback", "A decision's feedback", this::list)
                .ok(Schema.list(FeedbackShapes.FEEDBACK))
                .delete("/v1/studio/feedback/{feedback_id}", "Delete one feedback entry", this::delete)
                .ok(FeedbackShapes.FEEDBACK_DELETED);
    }

    private void post(Context ctx) {
        String id = ctx.pathParam("decision_id");
        ObjectNode body = Requests.jsonObject(ctx);
        StoredDecision decision = decisions.find(id).orElseThrow(() -> DecisionView.notFound(id));
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
            entries.add(new FeedbackStore.Entry(RATING_ONLY, Optional.empty(), Optional.empty(), Optional.empty()));
        }
        Optional<Integer> ratingValue = rating.isNull() ? Optional.empty() : Optional.of(rating.asInt());
        Optional<String> noteText = note.isTextual() ? Optional.of(note.textValue()) : Optional.empty();
        store.save(id, entries, ratingValue, noteText, ACTOR, clock.millis());
        respond(ctx, store.list(id));
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

    private void list(Context ctx) {
        String id = ctx.pathParam("decision_id");
        if (decisions.find(id).isEmpty()) {
            throw DecisionView.notFound(id);
        }
        respond(ctx, store.list(id));
    }

    private static void respond(Context ctx, List<Feedback> feedback) {
        Responses.ok(
                ctx,
                Responses.list(feedback, feedback.stream().map(Feedback::id).toList(), false));
    }

    /** What {@code DELETE /v1/studio/feedback/{id}} answers. */
    private record Deleted(String id, String object, boolean deleted) {}

    private void delete(Context ctx) {
        String id = ctx.pathParam("feedback_id");
        if (!store.delete(id)) {
            throw ApiException.of(ErrorCode.FEEDBACK_NOT_FOUND, "feedback_id", "There is no feedback " + id + ".");
        }
        Responses.ok(ctx, new Deleted(id, "feedback.deleted", true));
    }
}
