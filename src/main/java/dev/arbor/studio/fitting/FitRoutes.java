package dev.arbor.studio.fitting;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;
import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.Waiting;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.work.WorkStatus;
import io.javalin.http.Context;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/** The fit routes: {@code POST /v1/studio/templates/{id}/fit}, and the fits under {@code /v1/studio/fits}. */
final class FitRoutes {
    private static final String BASE = "/v1/studio/fits";
    private static final Schema COUNT = integer(0, Long.MAX_VALUE);

    private static final BodyField.Texts QUESTIONS =
            new BodyField.Texts("questions", BodyField.Presence.OPTIONAL, 128, 64);
    private static final BodyField.Text MODEL =
            new BodyField.Text("model", BodyField.Presence.OPTIONAL, 200, Optional.empty(), "");
    static final BodySpec FIT_IN = BodySpec.of(QUESTIONS, MODEL);

    static final Schema FIT = named(
            "Fit",
            resource("fit")
                    .required("status", oneOf("queued", "in_progress", "completed", "failed", "cancelled"))
                    .required("progress", object().required("done", COUNT).required("total", COUNT))
                    .required(
                            "template",
                            object().required("id", string()).required("base_version", integer(1, Integer.MAX_VALUE)))
                    .required("model", string())
                    .required("questions", arrayOf(string()))
                    .required("version", nullable(integer(1, Integer.MAX_VALUE)))
                    .required(
                            "heads",
                            nullable(mapOf(object().required("id", string())
                                    .required("facts", any("Label counts, cross-validated accuracy and log loss")))))
                    .required("error", nullable(any("Why it failed")))
                    .required("created_at", timestamp())
                    .required("started_at", nullable(timestamp()))
                    .required("completed_at", nullable(timestamp())));

    static final Schema FITS = Schema.list(FIT);
    static final Schema DELETED = Schema.deleted("fit");

    private static final QueryParam TEMPLATE =
            new QueryParam("template_id", string(200), "Only the fits of this template.");
    private static final QueryParam STATUS = new QueryParam(
            "status",
            oneOf(Arrays.stream(WorkStatus.values()).map(WorkStatus::wire).toArray(String[]::new)),
            "Only the fits in this status.");

    private static final Waiting WAIT = Waiting.on("the fit");

    private final Fits fits;

    FitRoutes(Fits fits) {
        this.fits = requireNonNull(fits, "fits");
    }

    void addTo(Routes routes) {
        String one = BASE + "/{fit_id}";
        routes.group("studio.fits")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .post(
                        "/v1/studio/templates/{template_id}/fit",
                        "Fit heads for a template's questions on its labels (answers at once; runs in the background)",
                        this::create)
                .body(FIT_IN.schema())
                .accepted(FIT)
                .get(BASE, "List fits, newest first", this::list)
                .query(PageParams.PARAMETERS)
                .query(TEMPLATE, STATUS)
                .ok(FITS)
                .get(one, "Get a fit (?wait=N waits for it to finish)", this::get)
                .query(WAIT.param())
                .ok(FIT)
                .action(one + "/cancel", "Cancel a queued or running fit", this::cancel)
                .ok(FIT)
                .delete(
                        one,
                        "Delete a fit (a queued or running one is cancelled first); the heads a template version "
                                + "names stay, so that its decisions keep using them",
                        this::delete)
                .ok(DELETED);
    }

    private void create(Context ctx) {
        var body = FIT_IN.reader(Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx));
        Optional<List<String>> questions = QUESTIONS.read(body);
        Optional<String> model = MODEL.read(body);
        body.finish();
        FitStore.Stored fit = fits.create(ctx.pathParam("template_id"), questions, model);
        ctx.header("location", BASE + "/" + fit.id());
        Responses.json(ctx, 202, FitView.of(fit));
    }

    private void list(Context ctx) {
        Optional<WorkStatus> status = STATUS.read(ctx)
                .map(text -> Arrays.stream(WorkStatus.values())
                        .filter(s -> s.wire().equals(text))
                        .findFirst()
                        .orElseThrow(() -> ApiException.of(
                                ErrorCode.INVALID_PARAMETER,
                                "status",
                                "`status` must be one of queued, in_progress, completed, failed, cancelled.")));
        Responses.ok(
                ctx,
                ListReply.page(
                        fits.list(PageParams.from(ctx), TEMPLATE.read(ctx), status), FitStore.Stored::id, FitView::of));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("fit_id");
        FitStore.Stored fit =
                WAIT.read(ctx, () -> fits.find(id), f -> f.status().finished());
        Responses.ok(ctx, FitView.of(fit));
    }

    private void cancel(Context ctx) {
        Responses.ok(ctx, FitView.of(fits.cancel(ctx.pathParam("fit_id"))));
    }

    private void delete(Context ctx) {
        String id = ctx.pathParam("fit_id");
        fits.delete(id);
        Responses.ok(ctx, Deleted.of(id, "fit"));
    }
}
