package dev.arbor.studio.stats;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.time.Clock;

/**
 * {@code GET /v1/studio/templates/{id}/compare?versions=a,b}: how two versions of a template answered (see
 * {@link Comparisons}).
 */
public final class CompareRoutes {
    private final Comparisons comparisons;

    public CompareRoutes(HistoryStore decisions, FeedbackStore feedback, Templates templates, Clock clock) {
        this.comparisons = new Comparisons(
                requireNonNull(decisions, "decisions"),
                requireNonNull(feedback, "feedback"),
                requireNonNull(templates, "templates"),
                requireNonNull(clock, "clock"));
    }

    public void addTo(Routes routes) {
        routes.group("studio.compare")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .get(
                        "/v1/studio/templates/{template_id}/compare",
                        "Compare how two versions of a template answered",
                        this::compare)
                .query(StatsShapes.VERSIONS)
                .ok(StatsShapes.COMPARISON);
    }

    private void compare(Context ctx) {
        Responses.ok(ctx, comparisons.compare(ctx.pathParam("template_id"), StatsShapes.VERSIONS.read(ctx)));
    }
}
