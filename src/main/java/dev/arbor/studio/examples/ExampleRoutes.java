package dev.arbor.studio.examples;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problem;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.ListReply;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Test examples of a template ({@code /v1/studio/templates/{id}/examples}): inputs with the answers they should
 * get, checked against the template's latest version like a decision, labels made canonical. Examples are
 * revisioned: every change moves the template's examples revision on, and any past set can be read back.
 */
public final class ExampleRoutes {
    private final ExampleStore store;
    private final Templates templates;
    private final Examples examples;

    public ExampleRoutes(
            ExampleStore store,
            HistoryStore decisions,
            FeedbackStore feedback,
            Templates templates,
            StudioFiles files,
            Clock clock,
            byte[] hmacKey) {
        this.store = requireNonNull(store, "store");
        this.templates = requireNonNull(templates, "templates");
        this.examples = new Examples(store, new ExampleDrafts(decisions, feedback, files, hmacKey), clock);
    }

    public void addTo(Routes routes) {
        String base = "/v1/studio/templates/{template_id}/examples";
        routes.group("studio.examples")
                .databaseUnavailableAs(ErrorCode.HISTORY_UNAVAILABLE)
                .get(base + "/export", "A template's current test examples as JSON lines", this::export)
                .answers(200, "application/x-ndjson", HistoryShapes.JSON_LINES)
                .post(
                        base + "/import",
                        "Add up to 5,000 test examples at once, each checked on its own",
                        this::importAll)
                .body(ExampleShapes.IMPORT.schema())
                .ok(ExampleShapes.IMPORTED)
                .postWithFiles(
                        base,
                        "Add a test example (input and expected answers, or from a decision)",
                        MediaInput.MAX_BODY_BYTES,
                        this::create)
                .body(ExampleShapes.EXAMPLE_IN)
                .created(ExampleShapes.EXAMPLE)
                .get(base, "A template's test examples (?revision= reads a past set)", this::list)
                .query(
                        ExampleShapes.REVISION,
                        ExampleShapes.EXAMPLE_LIMIT,
                        PageParams.AFTER,
                        ExampleShapes.SPLIT,
                        ExampleShapes.LABELLED,
                        ExampleShapes.TAG,
                        ExampleShapes.SEARCH)
                .ok(ExampleShapes.EXAMPLES)
                .get(base + "/{example_id}", "One test example (?revision=)", this::get)
                .query(ExampleShapes.REVISION)
                .ok(ExampleShapes.EXAMPLE)
                .patch(base + "/{example_id}", "Change a test example (a new revision, the same id)", this::patch)
                .body(ExampleShapes.EXAMPLE_PATCH)
                .ok(ExampleShapes.EXAMPLE)
                .delete(base + "/{example_id}", "Delete a test example (a new revision)", this::delete)
                .ok(ExampleShapes.EXAMPLE_DELETED);
    }

    private Templates.Resolved template(Context ctx) {
        return templates.resolve(ctx.pathParam("template_id"));
    }

    private void create(Context ctx) {
        Templates.Resolved template = template(ctx);
        ExampleStore.Row row = examples.create(template, Requests.jsonObject(ctx));
        ctx.header("location", "/v1/studio/templates/" + template.id() + "/examples/" + row.id());
        Responses.json(ctx, 201, row.json());
    }

    private void patch(Context ctx) {
        Responses.ok(
                ctx,
                examples.change(template(ctx), ctx.pathParam("example_id"), Requests.jsonObject(ctx))
                        .json());
    }

    private void delete(Context ctx) {
        String id = ctx.pathParam("example_id");
        examples.delete(template(ctx), id);
        Responses.ok(ctx, Deleted.of(id, "template.example"));
    }

    private void get(Context ctx) {
        Templates.Resolved template = template(ctx);
        String id = ctx.pathParam("example_id");
        int revision = revision(ctx, template.id());
        Responses.ok(
                ctx,
                store.at(template.id(), id, revision)
                        .orElseThrow(() -> Examples.notFound(id))
                        .json());
    }

    private void list(Context ctx) {
        Templates.Resolved template = template(ctx);
        int revision = revision(ctx, template.id());
        int limit = 100;
        String sent = ExampleShapes.EXAMPLE_LIMIT.read(ctx).orElse(null);
        if (sent != null) {
            try {
                limit = Integer.parseInt(sent);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > 1000) {
                throw ApiException.of(
                        ErrorCode.INVALID_PARAMETER, "limit", "`limit` is a whole number from 1 to 1000.");
            }
        }
        Optional<String> after = PageParams.AFTER.read(ctx);
        Optional<String> split = ExampleShapes.SPLIT.read(ctx);
        if (split.isPresent() && !split.get().equals("test") && !split.get().equals("calibration")) {
            throw ApiException.of(ErrorCode.INVALID_PARAMETER, "split", "`split` is test or calibration.");
        }
        Optional<Boolean> labelled = ExampleShapes.LABELLED.read(ctx).map(value -> switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw ApiException.of(ErrorCode.INVALID_PARAMETER, "labelled", "`labelled` is true or false.");
        });
        var filter = new ExampleStore.Filter(
                ExampleShapes.TAG.read(ctx),
                split,
                labelled,
                ExampleShapes.SEARCH.read(ctx).filter(q -> !q.isBlank()));
        List<ExampleStore.Row> rows = new ArrayList<>(store.list(template.id(), revision, after, limit, filter));
        boolean more = rows.size() > limit;
        if (more) {
            rows.removeLast();
        }
        ListReply<ObjectNode> list = ListReply.of(
                rows.stream().map(ExampleStore.Row::json).toList(),
                rows.stream().map(ExampleStore.Row::id).toList(),
                more);
        Responses.ok(ctx, new Listed(list.data(), list.firstId(), list.lastId(), list.hasMore(), revision));
    }

    private void importAll(Context ctx) {
        var body = ExampleShapes.IMPORT.reader(Requests.jsonObject(ctx));
        Optional<JsonNode> items = ExampleShapes.IMPORT_ITEMS.read(body);
        body.finish();
        Examples.Imported imported = examples.importAll(template(ctx), items.orElseThrow());
        Responses.ok(
                ctx,
                new ImportResult(
                        imported.created(),
                        imported.revision(),
                        imported.failed().stream().map(ImportResult.Failure::of).toList()));
    }

    private void export(Context ctx) {
        Templates.Resolved template = template(ctx);
        int revision = store.revision(template.id());
        ctx.contentType("application/x-ndjson");
        ctx.header(
                "content-disposition",
                "attachment; filename=\"" + template.id().replace('/', '-') + "-examples.jsonl\"");
        try (var out =
                new BufferedWriter(new OutputStreamWriter(ctx.res().getOutputStream(), StandardCharsets.UTF_8))) {
            Optional<String> after = Optional.empty();
            while (true) {
                List<ExampleStore.Row> rows = store.list(template.id(), revision, after, 500, ExampleStore.Filter.NONE);
                for (ExampleStore.Row row : rows.subList(0, Math.min(rows.size(), 500))) {
                    out.write(Json.writeString(row.json()));
                    out.write('\n');
                }
                if (rows.size() <= 500) {
                    break;
                }
                after = Optional.of(rows.get(499).id());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("the export was cut off", e);
        }
    }

    private int revision(Context ctx, String templateId) {
        int current = store.revision(templateId);
        String sent = ExampleShapes.REVISION.read(ctx).orElse(null);
        if (sent == null) {
            return current;
        }
        try {
            int revision = Integer.parseInt(sent);
            if (revision >= 0 && revision <= current) {
                return revision;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw ApiException.of(
                ErrorCode.INVALID_PARAMETER,
                "revision",
                "`revision` is a revision of these examples, " + "0 to " + current + ", not '" + sent + "'.");
    }

    /** A page of examples at one revision: the list shape, and the revision it was read at. */
    @JsonPropertyOrder({"object", "data", "first_id", "last_id", "has_more", "revision"})
    private record Listed(
            List<ObjectNode> data,
            @JsonProperty("first_id") @Nullable String firstId,
            @JsonProperty("last_id") @Nullable String lastId,
            @JsonProperty("has_more") boolean hasMore,
            int revision) {
        @JsonProperty("object")
        String object() {
            return "list";
        }
    }

    /** What an import made, and each item it refused with why. */
    @JsonPropertyOrder({"object", "created", "revision", "failed"})
    private record ImportResult(int created, int revision, List<Failure> failed) {
        @JsonProperty("object")
        String object() {
            return "import_result";
        }

        record Failure(int index, Error error) {
            static Failure of(Examples.Failure failed) {
                Problem problem = failed.problem();
                return new Failure(
                        failed.index(), new Error(problem.code().code(), problem.param(), problem.message()));
            }
        }

        record Error(String code, @Nullable String param, String message) {}
    }
}
