package dev.arbor.studio.examples;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Page;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problem;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Test examples of a template ({@code /v1/studio/templates/{id}/examples}): inputs with the answers they should
 * get, checked against the template's latest version like a decision, labels made canonical. Examples are
 * revisioned: every change moves the template's examples revision on, and any past set can be read back.
 */
public final class ExampleRoutes {
    static final int MAX_IMPORT = 5000;
    private final ExampleStore store;
    private final Templates templates;
    private final Clock clock;
    private final ExampleDrafts drafts;

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
        this.clock = requireNonNull(clock, "clock");
        this.drafts = new ExampleDrafts(decisions, feedback, files, hmacKey);
    }

    public void addTo(Routes routes) {
        String base = "/v1/studio/templates/{template_id}/examples";
        routes.group("studio.examples")
                .get(base + "/export", "A template's current test examples as JSON lines", this::export)
                .answers(200, "application/x-ndjson", HistoryShapes.JSON_LINES)
                .post(
                        base + "/import",
                        "Add up to 5,000 test examples at once, each checked on its own",
                        this::importAll)
                .body(ExampleShapes.IMPORT)
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
                        Page.AFTER,
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
        String id = ctx.pathParam("template_id");
        Templates.Resolved template = templates.resolve(id);
        return template;
    }

    private void create(Context ctx) {
        Templates.Resolved template = writable(template(ctx));
        ExampleDrafts.Draft draft = drafts.draft(template, Requests.jsonObject(ctx), Optional.empty())
                .orElseThrow();
        long now = clock.millis();
        ExampleStore.Row row = store.database().write(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            ExampleStore.withInput(handle, template.id(), draft.inputHash()).ifPresent(existing -> {
                throw exists(existing);
            });
            var created = row(Ids.next("ex"), template.id(), revision, draft, now, now);
            ExampleStore.insert(handle, created);
            return created;
        });
        ctx.header("location", "/v1/studio/templates/" + template.id() + "/examples/" + row.id());
        Responses.json(ctx, 201, row.json());
    }

    private void patch(Context ctx) {
        Templates.Resolved template = writable(template(ctx));
        String id = ctx.pathParam("example_id");
        ObjectNode patch = Requests.jsonObject(ctx);
        ExampleStore.Row current = store.database()
                .read(handle -> ExampleStore.current(handle, template.id(), id))
                .orElseThrow(() -> notFound(id));
        ObjectNode merged = current.json();
        for (String field : List.of("id", "object", "template", "revision", "created_at", "updated_at")) {
            if (patch.has(field)) {
                throw ApiException.of(
                        ErrorCode.READ_ONLY_FIELD, field, "`" + field + "` of an example cannot be " + "changed.");
            }
            merged.remove(field);
        }
        patch.properties().forEach(e -> {
            JsonNode value = e.getValue();
            if ((e.getKey().equals("variables") || e.getKey().equals("expected"))
                    && value.isObject()
                    && merged.path(e.getKey()).isObject()) {
                ObjectNode target = (ObjectNode) merged.get(e.getKey());
                value.properties().forEach(v -> {
                    if (v.getValue().isNull()) {
                        target.remove(v.getKey());
                    } else {
                        target.set(v.getKey(), v.getValue());
                    }
                });
            } else {
                merged.set(e.getKey(), value);
            }
        });
        merged.remove("from_decision");
        ExampleDrafts.Draft draft =
                drafts.draft(template, merged, Optional.empty()).orElseThrow();
        ExampleDrafts.Draft kept = new ExampleDrafts.Draft(
                draft.input(),
                draft.inputHash(),
                draft.expected(),
                draft.tags(),
                draft.split(),
                draft.note(),
                current.fromDecision());
        ExampleStore.Row row = store.database().write(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            ExampleStore.retire(handle, template.id(), id, revision);
            ExampleStore.withInput(handle, template.id(), kept.inputHash()).ifPresent(existing -> {
                throw exists(existing);
            });
            var changed = row(id, template.id(), revision, kept, current.createdAtMillis(), clock.millis());
            ExampleStore.insert(handle, changed);
            return changed;
        });
        Responses.ok(ctx, row.json());
    }

    private void delete(Context ctx) {
        Templates.Resolved template = writable(template(ctx));
        String id = ctx.pathParam("example_id");
        store.database().update(handle -> {
            int revision = ExampleStore.nextRevision(handle, template.id());
            if (!ExampleStore.retire(handle, template.id(), id, revision)) {
                throw notFound(id);
            }
        });
        Responses.ok(ctx, Map.of("id", id, "object", "template.example.deleted", "deleted", true));
    }

    private void get(Context ctx) {
        Templates.Resolved template = template(ctx);
        String id = ctx.pathParam("example_id");
        int revision = revision(ctx, template.id());
        Responses.ok(
                ctx,
                store.at(template.id(), id, revision)
                        .orElseThrow(() -> notFound(id))
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
        Optional<String> after = Page.AFTER.read(ctx);
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
        Map<String, Object> list = Responses.list(
                rows.stream().map(ExampleStore.Row::json).toList(),
                rows.stream().map(ExampleStore.Row::id).toList(),
                more);
        var body = new LinkedHashMap<>(list);
        body.put("revision", revision);
        Responses.ok(ctx, body);
    }

    private void importAll(Context ctx) {
        Templates.Resolved template = writable(template(ctx));
        JsonNode items = Requests.jsonObject(ctx).path("examples");
        if (!items.isArray() || items.isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "examples",
                    "`examples` must be a list of 1 to " + MAX_IMPORT + " examples.");
        }
        if (items.size() > MAX_IMPORT) {
            throw ApiException.of(
                    ErrorCode.TOO_MANY_ITEMS,
                    "examples",
                    "An import takes at most " + MAX_IMPORT + " examples; this one has " + items.size()
                            + ". Split it.");
        }
        var failed = new ArrayList<Map<String, Object>>();
        var drafts = new LinkedHashMap<Integer, ExampleDrafts.Draft>();
        for (int i = 0; i < items.size(); i++) {
            String prefix = ParamPath.index("examples", i);
            if (!items.get(i).isObject()) {
                failed.add(failure(
                        i,
                        new Problem(
                                ErrorCode.INVALID_FIELD, prefix, "`" + prefix + "` must be an " + "example object.")));
                continue;
            }
            try {
                drafts.put(
                        i,
                        this.drafts
                                .draft(template, (ObjectNode) items.get(i), Optional.of(prefix))
                                .orElseThrow());
            } catch (ApiException e) {
                failed.add(failure(i, e.problems().getFirst()));
            }
        }
        long now = clock.millis();
        int[] created = {0};
        int revision = store.database().write(handle -> {
            int next = ExampleStore.nextRevision(handle, template.id());
            drafts.forEach((index, draft) -> {
                Optional<String> existing = ExampleStore.withInput(handle, template.id(), draft.inputHash());
                if (existing.isPresent()) {
                    failed.add(failure(
                            index,
                            new Problem(
                                    ErrorCode.EXAMPLE_EXISTS,
                                    ParamPath.index("examples", index),
                                    "This input is already example " + existing.get() + ".")));
                    return;
                }
                ExampleStore.insert(handle, row(Ids.next("ex"), template.id(), next, draft, now, now));
                created[0]++;
            });
            return next;
        });
        failed.sort(java.util.Comparator.comparingInt(f -> (Integer) f.get("index")));
        var body = new LinkedHashMap<String, Object>();
        body.put("object", "import_result");
        body.put("created", created[0]);
        body.put("revision", revision);
        body.put("failed", failed);
        Responses.ok(ctx, body);
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

    // ---- checking an example

    // ---- helpers

    private static ExampleStore.Row row(
            String id, String templateId, int revision, ExampleDrafts.Draft draft, long created, long updated) {
        return new ExampleStore.Row(
                id,
                templateId,
                revision,
                draft.input(),
                draft.inputHash(),
                draft.expected(),
                draft.tags(),
                draft.split(),
                draft.note(),
                draft.fromDecision(),
                created,
                updated);
    }

    private static Templates.Resolved writable(Templates.Resolved template) {
        if (template.id().startsWith("builtin/")) {
            throw ApiException.of(
                    ErrorCode.TEMPLATE_READ_ONLY,
                    null,
                    "Starter template '" + template.id() + "' is "
                            + "read-only; clone it to keep examples of your own.");
        }
        return template;
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

    private static ApiException exists(String existing) {
        return ApiException.of(
                        ErrorCode.EXAMPLE_EXISTS,
                        null,
                        "This input is already example " + existing + "; change that one instead.")
                .withField("existing_id", existing);
    }

    private static ApiException notFound(String id) {
        return ApiException.of(ErrorCode.EXAMPLE_NOT_FOUND, "example_id", "There is no test example " + id + ".");
    }

    private static Map<String, Object> failure(int index, Problem problem) {
        var error = new LinkedHashMap<String, Object>();
        error.put("code", problem.code().code());
        error.put("param", problem.param());
        error.put("message", problem.message());
        var failure = new LinkedHashMap<String, Object>();
        failure.put("index", index);
        failure.put("error", error);
        return failure;
    }
}
