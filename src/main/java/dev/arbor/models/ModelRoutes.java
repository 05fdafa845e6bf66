package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.access.Access;
import dev.arbor.models.runtime.ModelRuntime;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.EventStream;
import dev.arbor.platform.http.EventStreams;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.references.ReferenceGuard;
import io.javalin.http.Context;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;

/** The registry's routes: {@code /v1/studio/models} for the studio, {@code /models} for admins (load, eject, logs). */
public final class ModelRoutes {
    /** How often a model's event stream looks for news: downloads report bytes about this often. */
    private static final long EVENTS_EVERY_MILLIS = 200;

    private static final QueryParam LINES =
            new QueryParam("lines", Schema.integer(1, 10_000), "How many of the last lines (default 200).");

    private static final BodyField.Value OPTIONS = BodyField.value(
            BodyField.Presence.OPTIONAL,
            "options",
            Schema.mapOf(Schema.any("An option for the model's engine, read as text.")));
    /**
     * {@code POST /models/{id}/load}. The body is optional, and the OpenAPI document's request bodies are required,
     * so the route declares none: it is read through this spec when there is one.
     */
    private static final BodySpec LOAD = BodySpec.of(OPTIONS);

    private final Models models;
    private final ModelRuntime runtime;
    private final Downloads downloads;
    private final ModelOperations operations;
    private final EventStreams streams;

    public ModelRoutes(
            Models models,
            ModelRuntime runtime,
            Downloads downloads,
            ModelOperations operations,
            EventStreams streams) {
        this.operations = requireNonNull(operations, "operations");
        this.models = requireNonNull(models, "models");
        this.runtime = requireNonNull(runtime, "runtime");
        this.downloads = requireNonNull(downloads, "downloads");
        this.streams = requireNonNull(streams, "streams");
    }

    public void addTo(Routes routes) {
        routes.group("studio.models")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .get("/v1/studio/models", "List the models decisions can run on", this::list)
                .ok(Schema.list(ApiShapes.MODEL))
                .get("/v1/studio/models/{model_id}", "Get a model", this::get)
                .ok(ApiShapes.MODEL);
        routes.group("models")
                .get("/models", "List the model registry", this::list)
                .ok(Schema.list(ApiShapes.MODEL))
                .post(
                        "/models",
                        "Add a model to the registry: a local folder, or a model hub repository to "
                                + "download (returns at once)",
                        this::add)
                .body(AddModel.BODY.schema())
                .created(ApiShapes.MODEL)
                .accepted(ApiShapes.MODEL)
                .action(
                        "/models/{model_id}/download",
                        "Download (or resume downloading) a model's files",
                        this::download)
                .accepted(ApiShapes.MODEL)
                .action(
                        "/models/{model_id}/download/cancel",
                        "Stop a model's download (its partial files stay)",
                        this::cancel)
                .ok(ApiShapes.DOWNLOAD_CANCELLED)
                .delete(
                        "/models/{model_id}",
                        "Remove an added model from the registry (ejects it; downloaded "
                                + "files go, a local folder stays); refused while active routers use it, unless "
                                + "forced",
                        this::delete)
                .query(ReferenceGuard.FORCE)
                .ok(ApiShapes.DELETED)
                .get("/models/{model_id}", "Get a model of the registry", this::get)
                .ok(ApiShapes.MODEL)
                .action(
                        "/models/{model_id}/load",
                        "Load a model in its own worker process (returns at once)",
                        this::load)
                .accepted(ApiShapes.MODEL)
                .action("/models/{model_id}/eject", "Stop a model's worker and free its memory", this::eject)
                .ok(ApiShapes.EJECTED)
                .get("/models/{model_id}/logs", "The last lines of a model's worker log", this::logs)
                .query(LINES)
                .ok(ApiShapes.LOGS)
                .get(
                        "/models/{model_id}/events",
                        "A model's download and load as they happen (server-sent "
                                + "events): its state first, then each change, until the work it saw ends",
                        this::events)
                .answers(200, "text/event-stream", Schema.string());
    }

    private void list(Context ctx) {
        List<Model> all = models.list();
        Responses.ok(
                ctx,
                ListReply.of(
                        all.stream().map(this::view).toList(),
                        all.stream().map(Model::id).toList(),
                        false));
    }

    private void get(Context ctx) {
        Responses.ok(ctx, view(models.require(ctx.pathParam("model_id"), "model_id")));
    }

    private void add(Context ctx) {
        Access.requireAdmin(ctx);
        ModelOperations.Added added = operations.add(Requests.jsonObject(ctx));
        Model model = added.model();
        if (!model.downloaded()) {
            model = downloads.await(model.id(), added.maxWait());
        }
        ctx.header("location", "/models/" + model.id());
        Responses.json(ctx, model.downloaded() ? 201 : 202, view(model).withWarnings(added.warnings()));
    }

    /** Starts or resumes the download of a model from a hub; a model whose files are here is answered as it is. */
    private void download(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        // only models from a hub or a URL are ever not downloaded: other sources are in place when added
        if (!model.downloaded() && !model.status().equals("downloading")) {
            if (model.source().equals("url")) {
                URI uri = URI.create(model.uri());
                downloads.startArchive(
                        model,
                        uri,
                        downloads.planArchive(uri),
                        Optional.ofNullable(model.options().get("sha256")));
            } else {
                var repository = AddModel.repository(model.uri());
                downloads.start(
                        model,
                        repository.name(),
                        repository.revision(),
                        downloads.plan(repository.name(), repository.revision(), model.engine()));
            }
        }
        Responses.json(ctx, 202, view(models.require(model.id(), "model_id")));
    }

    private void cancel(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        Responses.ok(ctx, new ModelView.Cancelled(model.id(), downloads.cancel(model.id())));
    }

    private void delete(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        List<Warning> warnings = operations.delete(model.id(), ReferenceGuard.WhenInUse.of(ctx));
        Responses.ok(ctx, Deleted.of(model.id(), "model", warnings));
    }

    /** A model as the API shows it, with its download's progress while it runs and its worker's process. */
    private ModelView view(Model model) {
        return ModelView.of(
                model,
                runtime.status(model.id(), model.status()),
                runtime.workerState(model.id()).workerPid(),
                downloads.progress(model.id()));
    }

    private void load(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        var options = new LinkedHashMap<String, String>();
        // the body is optional: a load without one takes the engine's defaults
        if (Requests.body(ctx).length > 0) {
            BodyReader body = LOAD.reader(Requests.jsonObject(ctx));
            Optional<JsonNode> sent = OPTIONS.read(body);
            if (sent.isPresent() && !sent.get().isObject()) {
                body.reject(OPTIONS.name(), ErrorCode.INVALID_FIELD, "must be an object of load options");
            }
            body.finish();
            sent.filter(JsonNode::isObject)
                    .ifPresent(given -> given.properties()
                            .forEach(e -> options.put(e.getKey(), e.getValue().asText())));
        }
        runtime.load(model.id(), options);
        Responses.json(ctx, 202, view(model));
    }

    private void eject(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        boolean ejected = runtime.eject(model.id());
        Responses.ok(ctx, new ModelView.Ejected(model.id(), ejected));
    }

    /**
     * Follows a model: {@code model} (as {@code GET /models/{id}} shows it) first, then {@code download} and
     * {@code load} as they change, and {@code end} once a download or load it saw under way has ended. On a model
     * with nothing under way it waits for work to start (a comment every 15 s keeps the connection).
     */
    private void events(Context ctx) throws IOException {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        EventStream stream = streams.open(ctx);
        stream.send("model", view(model));
        stream.flush();
        ModelView.FilesState download = filesState(model);
        ModelView.WorkerState load = workerState(model.id());
        boolean sawWork = false;
        try {
            while (stream.open()) {
                Optional<Model> now = models.find(model.id());
                if (now.isEmpty()) { // deleted meanwhile
                    stream.end();
                    return;
                }
                ModelView.FilesState downloadNow = filesState(now.get());
                ModelView.WorkerState loadNow = workerState(model.id());
                boolean changed = !downloadNow.equals(download) || !loadNow.equals(load);
                if (!downloadNow.equals(download)) {
                    stream.send("download", downloadNow);
                    download = downloadNow;
                }
                if (!loadNow.equals(load)) {
                    stream.send("load", loadNow);
                    load = loadNow;
                }
                boolean working =
                        download.status().equals("downloading") || load.status().equals("loading");
                if (sawWork && !working) {
                    stream.end();
                    return;
                }
                sawWork |= working;
                if (changed) {
                    stream.flush();
                } else {
                    stream.keepAlive();
                }
                Thread.sleep(EVENTS_EVERY_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            // the client went away
        }
    }

    private ModelView.FilesState filesState(Model model) {
        return ModelView.FilesState.of(model, downloads.progress(model.id()));
    }

    /** A model's worker: its status, process id while it runs, and the error a decision would get when it failed. */
    private ModelView.WorkerState workerState(String modelId) {
        ModelRuntime.WorkerState state = runtime.workerState(modelId);
        return new ModelView.WorkerState(
                state.status(),
                state.workerPid().orElse(null),
                state.error()
                        .map(message -> new ModelView.Failure(ErrorCode.MODEL_LOAD_FAILED.code(), message))
                        .orElse(null));
    }

    private void logs(Context ctx) {
        Access.requireAdmin(ctx);
        Model model = models.require(ctx.pathParam("model_id"), "model_id");
        int lines = 200;
        String sent = LINES.read(ctx).orElse(null);
        if (sent != null) {
            try {
                lines = Integer.parseInt(sent);
            } catch (NumberFormatException e) {
                lines = -1;
            }
            if (lines < 1 || lines > 10_000) {
                throw ApiException.of(ErrorCode.INVALID_PARAMETER, "lines", "`lines` must be from 1 to 10000.");
            }
        }
        Responses.ok(ctx, new ModelView.Logs(model.id(), runtime.logs(model.id(), lines)));
    }
}
