package dev.arbor.studio.erasure;

import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.time.Clock;
import java.util.Set;

/**
 * Removing things from history: delete or redact one decision, or every decision a filter matches (the list's
 * filters, plus {@code sensitive_hash} to find the decisions that read a sensitive value without keeping it). A
 * bulk change needs a filter or {@code "all": true}; {@code dry_run} counts without changing; pinned decisions are
 * left alone unless {@code include_pinned}. {@link HistoryEdits} checks the bodies and makes the changes.
 */
public final class HistoryEditRoutes {
    private static final String BASE = "/v1/studio/decisions";

    private final HistoryEdits edits;

    public HistoryEditRoutes(HistoryStore store, Templates templates, Clock clock, byte[] hmacKey) {
        this.edits = new HistoryEdits(store, templates, clock, hmacKey);
    }

    public void addTo(Routes routes) {
        routes.group("studio.history")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post(BASE + "/delete", "Delete every decision a filter matches (or all)", this::bulkDelete)
                .body(ErasureShapes.BULK_DELETE)
                .ok(ErasureShapes.BULK_DELETED)
                .post(BASE + "/redact", "Redact every decision a filter matches (or all)", this::bulkRedact)
                .body(ErasureShapes.BULK_REDACT)
                .ok(ErasureShapes.BULK_REDACTED)
                .post(
                        BASE + "/{decision_id}/redact",
                        "Redact parts of one decision's input or metadata",
                        this::redactOne)
                .body(ErasureShapes.REDACT)
                .ok(HistoryShapes.DECISION);
    }

    private void bulkDelete(Context ctx) {
        Responses.ok(ctx, edits.deleteAll(Requests.jsonObject(ctx)));
    }

    private void bulkRedact(Context ctx) {
        Responses.ok(ctx, edits.redactAll(Requests.jsonObject(ctx)));
    }

    private void redactOne(Context ctx) {
        StoredDecision after = edits.redactOne(ctx.pathParam("decision_id"), Requests.jsonObject(ctx));
        Responses.ok(
                ctx,
                DecisionView.present(after.decided(), after.input(), true, after.metadata(), after.pinned(), Set.of()));
    }
}
