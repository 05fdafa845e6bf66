package dev.arbor.studio.evals;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static java.util.Objects.requireNonNull;

import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import io.javalin.http.Context;
import java.util.List;
import java.util.Optional;

/** The eval routes under {@code /v1/studio/evals}. */
final class EvalRoutes {
    private static final String BASE = "/v1/studio/evals";
    private static final BodyField.Whole APPLY_TARGET =
            BodyField.integer(OPTIONAL, "target", 0, EvalRequest.MAX_TARGETS - 1);
    private static final BodyField.Texts APPLY_QUESTIONS = BodyField.texts(OPTIONAL, "questions", 128, 64);
    private static final BodyField.Whole APPLY_MIN_N =
            BodyField.integer(OPTIONAL, "min_n", EvalApply.LOWEST_MIN_N, 1_000_000);
    private static final BodyField.Text APPLY_NOTE = BodyField.text(OPTIONAL, "note", 500);
    private static final BodySpec APPLY_BODY = BodySpec.of(APPLY_TARGET, APPLY_QUESTIONS, APPLY_MIN_N, APPLY_NOTE);

    private final Evals evals;
    private final EvalStore store;
    private final EvalApply apply;

    EvalRoutes(Evals evals, EvalStore store, EvalApply apply) {
        this.evals = requireNonNull(evals, "evals");
        this.store = requireNonNull(store, "store");
        this.apply = requireNonNull(apply, "apply");
    }

    void addTo(Routes routes) {
        String one = BASE + "/{eval_id}";
        routes.group("studio.evals")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post(
                        BASE,
                        "Measure a template on labelled items (answers at once; runs in the background)",
                        this::create)
                .body(EvalShapes.EVAL_IN)
                .accepted(EvalShapes.EVAL)
                .get(BASE, "List evals, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .ok(EvalShapes.EVALS)
                .get(one, "Get an eval and its results (?wait=N waits for it to finish)", this::get)
                .query(EvalShapes.WAIT.param())
                .ok(EvalShapes.EVAL)
                .get(one + "/items", "An eval's items: each item's answers on each target, and its labels", this::items)
                .query(PageParams.LIMIT, EvalShapes.ITEMS_AFTER)
                .ok(EvalShapes.ITEMS)
                .action(one + "/cancel", "Cancel a queued or running eval", this::cancel)
                .ok(EvalShapes.EVAL)
                .post(
                        one + "/apply",
                        "Write a target's fitted temperature and act threshold into a new version",
                        this::apply)
                .body(APPLY_BODY.schema())
                .ok(EvalShapes.APPLIED)
                .delete(one, "Delete an eval and its items (its decisions stay in history)", this::delete)
                .ok(EvalShapes.DELETED);
    }

    private void create(Context ctx) {
        EvalStore.Stored eval = evals.create(Requests.jsonObject(ctx));
        ctx.header("location", BASE + "/" + eval.id());
        Responses.json(ctx, 202, EvalView.of(eval));
    }

    private void list(Context ctx) {
        Responses.ok(ctx, ListReply.page(store.list(PageParams.from(ctx)), EvalStore.Stored::id, EvalView::of));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("eval_id");
        EvalStore.Stored eval =
                EvalShapes.WAIT.read(ctx, () -> evals.find(id), e -> e.status().finished());
        Responses.ok(ctx, EvalView.of(eval));
    }

    private void items(Context ctx) {
        String id = ctx.pathParam("eval_id");
        evals.find(id);
        Page page = PageParams.from(ctx);
        Optional<int[]> after = page.after().map(cursor -> {
            String[] parts = cursor.split("\\.");
            try {
                if (parts.length == 2) {
                    return new int[] {Integer.parseInt(parts[0]), Integer.parseInt(parts[1])};
                }
            } catch (NumberFormatException e) {
                // refused below, as any other shape
            }
            throw page.unknownCursor();
        });
        List<EvalStore.Item> found = store.items(id, after, page.limit());
        boolean more = found.size() > page.limit();
        List<EvalStore.Item> shown = more ? found.subList(0, page.limit()) : found;
        Responses.ok(
                ctx,
                ListReply.of(
                        shown.stream().map(EvalView.Item::of).toList(),
                        shown.stream().map(EvalStore.Item::id).toList(),
                        more));
    }

    private void cancel(Context ctx) {
        Responses.ok(ctx, EvalView.of(evals.cancel(ctx.pathParam("eval_id"))));
    }

    private void apply(Context ctx) {
        BodyReader body = APPLY_BODY.reader(Requests.jsonObject(ctx));
        var request = new EvalApply.Request(
                APPLY_TARGET.read(body).map(Long::intValue).orElse(0),
                APPLY_QUESTIONS.read(body),
                APPLY_MIN_N.read(body).map(Long::intValue).orElse(EvalApply.DEFAULT_MIN_N),
                APPLY_NOTE.read(body));
        body.finish();
        Responses.ok(ctx, apply.apply(ctx.pathParam("eval_id"), request));
    }

    private void delete(Context ctx) {
        String id = ctx.pathParam("eval_id");
        evals.delete(id);
        Responses.ok(ctx, Deleted.of(id, "eval"));
    }
}
