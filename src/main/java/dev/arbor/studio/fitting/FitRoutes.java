package dev.arbor.studio.fitting;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;
import static java.util.Objects.requireNonNull;

import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import io.javalin.http.Context;
import java.util.Optional;

/** The fit routes: {@code POST /v1/studio/templates/{id}/fit}, and the fits under {@code /v1/studio/fits}. */
final class FitRoutes {
    private static final String BASE = "/v1/studio/fits";
    private static final int MAX_WAIT_SECONDS = 60;
    private static final Schema COUNT = integer(0, Long.MAX_VALUE);

    static final Schema FIT_IN =
            object().optional("questions", arrayOf(string(64))).optional("model", string(200));

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

    static final QueryParam WAIT =
            new QueryParam("wait", number(), "Seconds (up to 60) to wait for the fit to finish before answering.");

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
                .body(FIT_IN)
                .accepted(FIT)
                .get(one, "Get a fit (?wait=N waits for it to finish)", this::get)
                .query(WAIT)
                .ok(FIT)
                .action(one + "/cancel", "Cancel a queued or running fit", this::cancel)
                .ok(FIT);
    }

    private void create(Context ctx) {
        var body = Requests.body(ctx).length == 0 ? Json.object() : Requests.jsonObject(ctx);
        FitStore.Stored fit = fits.create(ctx.pathParam("template_id"), body);
        ctx.header("location", BASE + "/" + fit.id());
        Responses.json(ctx, 202, Fits.json(fit));
    }

    private void get(Context ctx) {
        String id = ctx.pathParam("fit_id");
        int wait = waitSeconds(ctx);
        FitStore.Stored fit = fits.find(id);
        long deadline = System.nanoTime() + wait * 1_000_000_000L;
        while (!fit.status().finished() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            fit = fits.find(id);
        }
        Responses.ok(ctx, Fits.json(fit));
    }

    private static int waitSeconds(Context ctx) {
        Optional<String> sent = WAIT.read(ctx);
        try {
            double seconds = sent.map(Double::parseDouble).orElse(0.0);
            if (!(seconds >= 0 && seconds <= MAX_WAIT_SECONDS)) {
                throw new NumberFormatException();
            }
            return (int) Math.ceil(seconds);
        } catch (NumberFormatException e) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "wait",
                    "`wait` is a number of seconds from 0 to " + MAX_WAIT_SECONDS + ", not '" + sent.orElse("") + "'.");
        }
    }

    private void cancel(Context ctx) {
        Responses.ok(ctx, Fits.json(fits.cancel(ctx.pathParam("fit_id"))));
    }
}
