package dev.arbor.studio.feedback;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.List;

/**
 * Feedback on decisions: the expected answer per question (checked and made canonical against the stored answer,
 * with whether the decision got it right) and a rating. One entry per decision, question and actor: posting again
 * updates it. A rating with no labelled question is kept under the question {@code *}.
 */
public final class FeedbackRoutes {
    static final String ACTOR = "local";
    static final String RATING_ONLY = "*";

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
        FeedbackInput input = FeedbackInput.parse(decision, body);
        store.save(id, input.entries(), input.rating(), input.note(), ACTOR, clock.millis());
        respond(ctx, store.list(id));
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
                ctx, ListReply.of(feedback, feedback.stream().map(Feedback::id).toList(), false));
    }

    private void delete(Context ctx) {
        String id = ctx.pathParam("feedback_id");
        if (!store.delete(id)) {
            throw ApiException.of(ErrorCode.FEEDBACK_NOT_FOUND, "feedback_id", "There is no feedback " + id + ".");
        }
        Responses.ok(ctx, Deleted.of(id, "feedback"));
    }
}
