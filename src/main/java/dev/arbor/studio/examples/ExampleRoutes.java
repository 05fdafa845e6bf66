package dev.arbor.studio.examples;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Page;
import dev.arbor.platform.http.ParamPath;
import dev.arbor.platform.http.Problem;
import dev.arbor.platform.http.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.http.Routes;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.decisions.DecisionRequest;
import dev.arbor.studio.decisions.MediaInput;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Labels;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.templates.Substitution;
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
import java.util.Set;

/**
 * Test examples of a template ({@code /v1/studio/templates/{id}/examples}): inputs with the answers they should
 * get, checked against the template's latest version like a decision, labels made canonical. Examples are
 * revisioned: every change moves the template's examples revision on, and any past set can be read back.
 */
public final class ExampleRoutes {
    static final int MAX_IMPORT = 5000;
    private static final int MAX_NOTE = 2000;
    private static final Set<String> FIELDS =
            Set.of("variables", "state", "media", "expected", "tags", "split", "note", "from_decision");

    private final ExampleStore store;
    private final HistoryStore decisions;
    private final FeedbackStore feedback;
    private final Templates templates;
    private final StudioFiles files;
    private final Clock clock;
    private final byte[] hmacKey;

    public ExampleRoutes(
            ExampleStore store,
            HistoryStore decisions,
            FeedbackStore feedback,
            Templates templates,
            StudioFiles files,
            Clock clock,
            byte[] hmacKey) {
        this.store = requireNonNull(store, "store");
        this.decisions = requireNonNull(decisions, "decisions");
        this.feedback = requireNonNull(feedback, "feedback");
        this.templates = requireNonNull(templates, "templates");
        this.files = requireNonNull(files, "files");
        this.clock = requireNonNull(clock, "clock");
        this.hmacKey = requireNonNull(hmacKey, "hmacKey").clone();
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

    /** A checked example, ready to store. */
    private record Draft(
            ObjectNode input,
            String inputHash,
            ObjectNode expected,
            List<String> tags,
            String split,
            Optional<String> note,
            Optional<String> fromDecision) {}

    private Templates.Resolved template(Context ctx) {
        String id = ctx.pathParam("template_id");
        Templates.Resolved template = templates.resolve(id);
        return template;
    }

    private void create(Context ctx) {
        Templates.Resolved template = writable(template(ctx));
        Draft draft =
                draft(template, Requests.jsonObject(ctx), Optional.empty()).orElseThrow();
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
        Draft draft = draft(template, merged, Optional.empty()).orElseThrow();
        Draft kept = new Draft(
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
        var drafts = new LinkedHashMap<Integer, Draft>();
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
                        draft(template, (ObjectNode) items.get(i), Optional.of(prefix))
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

    /**
     * Checks an example body against the template's latest version; every problem of the pass at once, with
     * params under {@code prefix} (an import's {@code examples[i]}).
     */
    private Optional<Draft> draft(Templates.Resolved template, ObjectNode body, Optional<String> prefix) {
        var problems = new Problems();
        body.fieldNames().forEachRemaining(name -> {
            if (!FIELDS.contains(name)) {
                problems.add(ErrorCode.INVALID_FIELD, name, "`" + name + "` is not a field of a test example.");
            }
        });
        ObjectNode source = body.deepCopy();
        ObjectNode expected = Json.object();
        Optional<String> fromDecision = Optional.empty();
        if (body.hasNonNull("from_decision")) {
            fromDecision = Optional.of(body.get("from_decision").asText());
            fromDecision(template, fromDecision.get(), source, expected, problems);
        }
        if (body.path("expected").isObject()) {
            body.get("expected").properties().forEach(e -> expected.set(e.getKey(), e.getValue()));
        } else if (body.hasNonNull("expected")) {
            problems.add(
                    ErrorCode.INVALID_FIELD,
                    "expected",
                    "`expected` must be an object of question key to the " + "right answer.");
        }
        ObjectNode definition = template.definition();
        ObjectNode input = Json.object();
        boolean declaresVariables = !definition.path("variables").isEmpty();
        if (declaresVariables) {
            if (source.hasNonNull("state")) {
                problems.add(
                        ErrorCode.STATE_NOT_ALLOWED,
                        "state",
                        "Template '" + template.id() + "' builds the "
                                + "situation from its variables; send `variables`.");
            }
            Substitution.check(
                            definition,
                            source.path("variables").isMissingNode() ? null : source.get("variables"),
                            hmacKey,
                            problems)
                    .ifPresent(filled -> filled.media().forEach(item -> MediaInput.fromVariable(item, problems)));
            input.set("variables", source.path("variables").isObject() ? source.get("variables") : Json.object());
            input.putNull("state");
        } else {
            if (source.hasNonNull("variables")) {
                problems.add(
                        ErrorCode.VARIABLES_NEED_TEMPLATE,
                        "variables",
                        "Template '" + template.id() + "' declares no variables; send the situation as `state`.");
            }
            JsonNode state = source.path("state");
            if (state.isMissingNode() || state.isNull()) {
                problems.add(ErrorCode.STATE_REQUIRED, "state", "`state` is required: the situation to decide about.");
            } else if (!(state.isTextual() || state.isContainerNode())) {
                problems.add(ErrorCode.INVALID_FIELD, "state", "`state` must be text, an object or a list.");
            } else if ((state.isTextual() && state.textValue().isBlank())
                    || (state.isContainerNode() && state.isEmpty())) {
                problems.add(ErrorCode.EMPTY_STATE, "state", "`state` is empty; describe the situation.");
            } else {
                DecisionRequest.stateTooLarge(state)
                        .ifPresent(why -> problems.add(ErrorCode.INVALID_FIELD, "state", "`state` " + why + "."));
            }
            input.putNull("variables");
            input.set("state", state.isMissingNode() ? null : state);
        }
        input.set("media", media(source.get("media"), problems));
        ObjectNode labels = labels(template, expected, problems);
        List<String> tags = tags(body.get("tags"), problems);
        String split = body.path("split").asText("test");
        if (body.hasNonNull("split") && !split.equals("test") && !split.equals("calibration")) {
            problems.add(ErrorCode.INVALID_FIELD, "split", "`split` is test or calibration.");
        }
        JsonNode note = body.path("note");
        if (!note.isMissingNode()
                && !note.isNull()
                && (!note.isTextual() || note.textValue().length() > MAX_NOTE)) {
            problems.add(
                    ErrorCode.INVALID_FIELD, "note", "`note` must be text of at most " + MAX_NOTE + " characters.");
        }
        if (!problems.isEmpty()) {
            throw ApiException.of(problems.list().stream()
                    .map(p -> new Problem(
                            p.code(),
                            prefix.map(pre -> p.param() == null ? pre : pre + "." + p.param())
                                    .orElse(p.param()),
                            p.message()))
                    .toList());
        }
        // the same bytes make the same example, whichever file holds them
        ObjectNode identity = input.deepCopy();
        identity.path("media").forEach(item -> ((ObjectNode) item).remove("file_id"));
        String hash = "sha256:" + Digests.sha256Hex(Json.writeString(identity).getBytes(StandardCharsets.UTF_8));
        return Optional.of(new Draft(
                input,
                hash,
                labels,
                tags,
                split,
                note.isTextual() ? Optional.of(note.textValue()) : Optional.empty(),
                fromDecision));
    }

    /** Takes the input and labels of a stored decision that kept them whole. */
    private void fromDecision(
            Templates.Resolved template, String decisionId, ObjectNode source, ObjectNode expected, Problems problems) {
        StoredDecision decision = decisions.find(decisionId).orElseThrow(() -> DecisionView.notFound(decisionId));
        ObjectNode input = decision.input()
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INPUT_UNAVAILABLE,
                        "from_decision",
                        "Decision " + decisionId + " was stored "
                                + decision.storage().wire() + ", so its input was not kept."));
        if (input.has("redacted")
                || !decision.secrets().isEmpty()
                || input.toString().contains("\"$redacted\"")) {
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "from_decision",
                    "Decision " + decisionId + " was "
                            + "redacted or read sensitive values, which history does not keep.");
        }
        if (!input.path("media").isEmpty()) {
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "from_decision",
                    "Decision " + decisionId + " read media; send the example with its media instead.");
        }
        boolean sameTemplate = decision.templateId().map(template.id()::equals).orElse(false);
        if (!source.has("variables") && !source.has("state")) {
            if (input.path("variables").isObject() && sameTemplate) {
                source.set("variables", input.get("variables"));
            } else if (template.definition().path("variables").isEmpty()) {
                source.set("state", input.get("state"));
            } else {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        "variables",
                        "Decision " + decisionId + " was not made with " + "template '" + template.id()
                                + "'; send the example's `variables`.");
            }
        }
        FeedbackStore.labels(feedback.list(decisionId))
                .properties()
                .forEach(e -> expected.set(e.getKey(), e.getValue().get("expected")));
    }

    /** Media an example keeps for good: uploads by id (which must exist), bytes sent inline as new files. */
    private ArrayNode media(JsonNode sent, Problems problems) {
        ArrayNode items = Json.mapper().createArrayNode();
        if (sent == null || sent.isNull()) {
            return items;
        }
        for (MediaInput item : MediaInput.parse(sent, problems)) {
            StudioFile file;
            if (item.inline()) {
                file = files.keep(item.decode(), item.type(), item.contentType(), item.name());
            } else {
                Optional<StudioFile> found = files.find(item.reference()).filter(files::available);
                if (found.isEmpty()) {
                    problems.add(
                            ErrorCode.FILE_NOT_FOUND,
                            item.param(),
                            "There is no file " + item.reference() + " with its bytes.");
                    continue;
                }
                if (item.withFile(found.get(), problems).isEmpty()) {
                    continue;
                }
                file = found.get();
                files.hold(List.of(file.id()));
            }
            ObjectNode json = items.addObject();
            json.put("type", file.type());
            json.put("file_id", file.id());
            json.put("content_type", file.contentType());
            json.put("bytes", file.bytes());
            json.put("sha256", "sha256:" + file.sha256());
            json.put("name", item.name().or(file::name).orElse(null));
        }
        return items;
    }

    /** Each label checked against its question in the latest version (options from a variable: as given). */
    private static ObjectNode labels(Templates.Resolved template, ObjectNode expected, Problems problems) {
        ObjectNode labels = Json.object();
        JsonNode questions = template.definition().path("questions");
        expected.properties().forEach(e -> {
            String param = ParamPath.key("expected", e.getKey());
            JsonNode definition = questions.get(e.getKey());
            if (definition == null) {
                var keys = new ArrayList<String>();
                questions.fieldNames().forEachRemaining(keys::add);
                problems.add(
                        ErrorCode.INVALID_EXPECTED,
                        param,
                        "`" + e.getKey() + "` is not a question of template '" + template.id() + "'."
                                + Templates.didYouMean(e.getKey(), keys));
                return;
            }
            if (definition.path("criteria").isTextual()) {
                labels.set(e.getKey(), e.getValue());
                return;
            }
            var question = new Question(e.getKey(), (ObjectNode) definition, "template", false);
            switch (Labels.checkAgainst(question, e.getValue())) {
                case Labels.Canonical canonical -> labels.set(e.getKey(), canonical.value());
                case Labels.Unfit unfit ->
                    problems.add(ErrorCode.INVALID_EXPECTED, param, "`" + param + "` " + unfit.why() + ".");
            }
        });
        return labels;
    }

    private static List<String> tags(JsonNode sent, Problems problems) {
        var tags = new ArrayList<String>();
        if (sent == null || sent.isNull()) {
            return tags;
        }
        if (!sent.isArray()) {
            problems.add(ErrorCode.INVALID_FIELD, "tags", "`tags` must be a list of short strings.");
            return tags;
        }
        for (int i = 0; i < sent.size(); i++) {
            JsonNode tag = sent.get(i);
            if (!tag.isTextual() || tag.textValue().isBlank() || tag.textValue().length() > 64) {
                problems.add(ErrorCode.INVALID_FIELD, ParamPath.index("tags", i), "A tag is 1 to 64 characters.");
            } else if (!tags.contains(tag.textValue())) {
                tags.add(tag.textValue());
            }
        }
        return tags;
    }

    // ---- helpers

    private static ExampleStore.Row row(
            String id, String templateId, int revision, Draft draft, long created, long updated) {
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
