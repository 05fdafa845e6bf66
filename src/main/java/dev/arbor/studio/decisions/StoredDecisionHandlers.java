package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Deleted;
import dev.arbor.platform.http.PageParams;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.Export;
import dev.arbor.studio.history.Extensions;
import dev.arbor.studio.history.HistoryQuery;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.questions.Answer;
import dev.arbor.studio.templates.Templates;
import io.javalin.http.Context;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The handlers of the decision routes that read and change decisions history keeps: list, export, input, patch and
 * delete ({@link DecisionRoutes} declares the routes, in their order).
 */
final class StoredDecisionHandlers {
    private final HistoryStore store;
    private final Templates templates;
    private final FeedbackStore feedback;
    private final Clock clock;

    StoredDecisionHandlers(HistoryStore store, Templates templates, FeedbackStore feedback, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.templates = requireNonNull(templates, "templates");
        this.feedback = requireNonNull(feedback, "feedback");
        this.clock = requireNonNull(clock, "clock");
    }

    void list(Context ctx) {
        Page page = PageParams.from(ctx);
        var params = HistoryQuery.params(ctx, List.of());
        String view = HistoryShapes.VIEW.read(ctx).orElse("summary");
        if (!view.equals("summary") && !view.equals("full")) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER, "view", "`view` is summary or full, not '" + view + "'.");
        }
        Set<String> include = DecisionRoutes.includeParameter(ctx);
        var query = store.query(params, templates, clock.instant());
        var result = store.list(query, page);
        Set<String> labelled = feedback.labelled(
                result.items().stream().map(StoredDecision::id).toList());
        Responses.ok(
                ctx,
                Responses.page(
                        result,
                        StoredDecision::id,
                        decision -> view.equals("full")
                                ? DecisionView.present(
                                        decision.decided(),
                                        decision.input(),
                                        include.stream().anyMatch(i -> i.startsWith("input")),
                                        decision.metadata(),
                                        decision.pinned(),
                                        include)
                                : summary(decision, labelled.contains(decision.id()))));
    }

    void export(Context ctx) {
        String format = HistoryShapes.EXPORT_FORMAT.read(ctx).orElse("jsonl");
        if (!format.equals("jsonl") && !format.equals("csv")) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER, "format", "`format` is jsonl or csv, not '" + format + "'.");
        }
        var query =
                store.query(HistoryQuery.params(ctx, List.of(HistoryShapes.EXPORT_FORMAT)), templates, clock.instant());
        ctx.contentType(format.equals("csv") ? "text/csv; charset=utf-8" : "application/x-ndjson");
        ctx.header("content-disposition", "attachment; filename=\"decisions." + format + "\"");
        try (var out =
                new BufferedWriter(new OutputStreamWriter(ctx.res().getOutputStream(), StandardCharsets.UTF_8))) {
            if (format.equals("csv")) {
                out.write(Export.CSV_HEADER);
            }
            store.eachPage(query, page -> {
                try {
                    for (StoredDecision decision : page) {
                        out.write(
                                format.equals("csv")
                                        ? Export.csv(decision)
                                        : Json.writeString(show(decision, Set.of())) + "\n");
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException("the export was cut off", e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("the export was cut off", e);
        }
    }

    /** A decision as a list shows it: what was decided, how sure, and where it came from. */
    private static Summary summary(StoredDecision decision, boolean labelled) {
        Decided decided = decision.decided();
        Extensions extensions = decided.extensions();
        Optional<Decided.Answered> answered = decided.answered();
        var answers = new LinkedHashMap<String, BriefAnswer>();
        answered.map(Decided.Answered::answers)
                .orElse(Map.of())
                .forEach((key, answer) -> answers.put(
                        key,
                        new BriefAnswer(
                                answer.type().wire(),
                                answer instanceof Answer.Multi multi ? multi.selected() : answer.word(),
                                answer.gate().certainty(),
                                answer.gate().act())));
        return new Summary(
                decision.id(),
                decision.status().wire(),
                decided.createdAt(),
                decided.template()
                        .map(template -> new TemplateRef(template.id(), template.version()))
                        .orElse(null),
                decided.model().orElse(null),
                new SourceRef(decided.source().surface()),
                !extensions.questions().isEmpty()
                        || !extensions.options().isEmpty()
                        || !extensions.skipped().isEmpty(),
                answered.map(Decided.Answered::act).orElse(null),
                answered.map(Decided.Answered::needsReview).orElse(List.of()),
                answers,
                new TimingRef(decided.timing().totalMs()),
                decision.metadata(),
                decision.pinned(),
                labelled,
                decided.error().map(error -> new ErrorRef(error.code())).orElse(null));
    }

    /** A decision in a list ({@code view=summary}): the fields a table of decisions shows. */
    @JsonPropertyOrder({
        "id",
        "object",
        "status",
        "created_at",
        "template",
        "model",
        "source",
        "extended",
        "act",
        "needs_review",
        "answers",
        "timing",
        "metadata",
        "pinned",
        "labelled",
        "error"
    })
    private record Summary(
            String id,
            String status,
            @JsonProperty("created_at") long createdAt,
            @Nullable TemplateRef template,
            @Nullable String model,
            SourceRef source,
            boolean extended,
            @Nullable Boolean act,
            @JsonProperty("needs_review") List<String> needsReview,
            Map<String, BriefAnswer> answers,
            TimingRef timing,
            ObjectNode metadata,
            boolean pinned,
            boolean labelled,
            @Nullable ErrorRef error) {
        @JsonProperty("object")
        String object() {
            return "decision.summary";
        }
    }

    private record TemplateRef(String id, int version) {}

    private record SourceRef(String surface) {}

    /**
     * One answer in a summary.
     *
     * @param decision the chosen word, or the list a multi-select answer selected
     */
    private record BriefAnswer(String type, Object decision, double certainty, boolean act) {}

    private record TimingRef(@JsonProperty("total_ms") double totalMs) {}

    private record ErrorRef(String code) {}

    void input(Context ctx) {
        String id = ctx.pathParam("decision_id");
        StoredDecision decision = find(id);
        DecisionInput input = decision.input()
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INPUT_UNAVAILABLE,
                        "Decision " + id + " was stored " + decision.storage().wire()
                                + ", so its input was not kept."));
        if (input.isRedacted()) {
            List<String> paths = input.redacted();
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "Decision " + id + " was redacted (" + String.join(", ", paths)
                            + "); its input can no longer be read back whole.");
        }
        Responses.ok(ctx, new InputReply(id, input.json()));
    }

    /**
     * A decision's input as it was sent, after the object and the decision's id.
     *
     * @param input the request's fields, each written at the top level
     */
    @JsonPropertyOrder({"object", "decision_id"})
    private record InputReply(
            @JsonProperty("decision_id") String decisionId,
            @JsonIgnore ObjectNode input) {
        @JsonProperty("object")
        String object() {
            return "decision.input";
        }

        @JsonAnyGetter
        Map<String, JsonNode> fields() {
            var fields = new LinkedHashMap<String, JsonNode>();
            input.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
            return fields;
        }
    }

    void patch(Context ctx) {
        String id = ctx.pathParam("decision_id");
        ObjectNode body = Requests.jsonObject(ctx);
        StoredDecision decision = find(id);
        var problems = new Problems();
        Optional<ObjectNode> metadata = Optional.empty();
        Optional<Boolean> pinned = Optional.empty();
        for (var entries = body.properties().iterator(); entries.hasNext(); ) {
            var entry = entries.next();
            switch (entry.getKey()) {
                case "metadata" -> metadata = mergedMetadata(decision.metadata(), entry.getValue(), problems);
                case "pinned" -> {
                    if (entry.getValue().isBoolean()) {
                        pinned = Optional.of(entry.getValue().booleanValue());
                    } else {
                        problems.add(ErrorCode.INVALID_FIELD, "pinned", "`pinned` must be true or false.");
                    }
                }
                default ->
                    problems.add(
                            ErrorCode.READ_ONLY_FIELD,
                            entry.getKey(),
                            "`" + entry.getKey() + "` cannot "
                                    + "be changed: a decision records what happened; only `metadata` and `pinned` may change.");
            }
        }
        problems.throwIfAny();
        if (!store.patch(id, metadata, pinned)) {
            throw DecisionView.notFound(id);
        }
        Responses.ok(ctx, show(find(id), Set.of()));
    }

    /** RFC 7396 on the metadata object: {@code null} removes a key; the result must fit the metadata limits. */
    private static Optional<ObjectNode> mergedMetadata(ObjectNode current, JsonNode patch, Problems problems) {
        if (patch.isNull()) {
            return Optional.of(Json.object());
        }
        if (!patch.isObject()) {
            problems.add(ErrorCode.INVALID_METADATA, "metadata", "`metadata` must be an object of string values.");
            return Optional.empty();
        }
        ObjectNode merged = current.deepCopy();
        patch.properties().forEach(e -> {
            if (e.getValue().isNull()) {
                merged.remove(e.getKey());
            } else {
                merged.set(e.getKey(), e.getValue());
            }
        });
        return Metadata.check(merged, "metadata", problems);
    }

    void delete(Context ctx) {
        String id = ctx.pathParam("decision_id");
        if (!store.delete(id)) {
            throw DecisionView.notFound(id);
        }
        Responses.ok(ctx, Deleted.of(id, "decision"));
    }

    static ObjectNode show(StoredDecision decision, Set<String> include) {
        return DecisionView.present(
                decision.decided(), decision.input(), true, decision.metadata(), decision.pinned(), include);
    }

    private StoredDecision find(String id) {
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }
}
