package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.db.Page;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

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
    private static ObjectNode summary(StoredDecision decision, boolean labelled) {
        Decided decided = decision.decided();
        ObjectNode summary = Json.object();
        summary.put("id", decision.id());
        summary.put("object", "decision.summary");
        summary.put("status", decision.status().wire());
        summary.put("created_at", decided.createdAt());
        if (decided.template().isPresent()) {
            summary.putObject("template")
                    .put("id", decided.template().get().id())
                    .put("version", decided.template().get().version());
        } else {
            summary.putNull("template");
        }
        summary.put("model", decided.model().orElse(null));
        summary.putObject("source").put("surface", decided.source().surface());
        Extensions extensions = decided.extensions();
        summary.put(
                "extended",
                !extensions.questions().isEmpty()
                        || !extensions.options().isEmpty()
                        || !extensions.skipped().isEmpty());
        Optional<Decided.Answered> answered = decided.answered();
        summary.put("act", answered.map(Decided.Answered::act).orElse(null));
        ArrayNode review = summary.putArray("needs_review");
        answered.ifPresent(a -> a.needsReview().forEach(review::add));
        ObjectNode answers = summary.putObject("answers");
        answered.map(Decided.Answered::answers).orElse(Map.of()).forEach((key, answer) -> {
            ObjectNode brief = answers.putObject(key);
            brief.put("type", answer.type().wire());
            if (answer instanceof Answer.Multi multi) {
                multi.selected().forEach(brief.putArray("decision")::add);
            } else {
                brief.put("decision", answer.word());
            }
            brief.put("certainty", answer.gate().certainty());
            brief.put("act", answer.gate().act());
        });
        summary.putObject("timing").put("total_ms", decided.timing().totalMs());
        summary.set("metadata", decision.metadata());
        summary.put("pinned", decision.pinned());
        summary.put("labelled", labelled);
        if (decided.error().isPresent()) {
            summary.putObject("error").put("code", decided.error().get().code());
        } else {
            summary.putNull("error");
        }
        return summary;
    }

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
        ObjectNode out = Json.object();
        out.put("object", "decision.input");
        out.put("decision_id", id);
        out.setAll(input.json());
        Responses.ok(ctx, out);
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
        Responses.ok(ctx, Map.of("id", id, "object", "decision.deleted", "deleted", true));
    }

    static ObjectNode show(StoredDecision decision, Set<String> include) {
        return DecisionView.present(
                decision.decided(), decision.input(), true, decision.metadata(), decision.pinned(), include);
    }

    private StoredDecision find(String id) {
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }
}
