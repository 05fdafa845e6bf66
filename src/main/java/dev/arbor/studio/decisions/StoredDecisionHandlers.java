package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.http.ApiException;
import dev.arbor.platform.http.ErrorCode;
import dev.arbor.platform.http.Json;
import dev.arbor.platform.http.Page;
import dev.arbor.platform.http.Problems;
import dev.arbor.platform.http.Requests;
import dev.arbor.platform.http.Responses;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.feedback.FeedbackStore;
import dev.arbor.studio.history.DecisionView;
import dev.arbor.studio.history.Export;
import dev.arbor.studio.history.HistoryQuery;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
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
        Page page = Page.from(ctx);
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
                                        decision.body(),
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
        ObjectNode body = decision.body();
        ObjectNode summary = Json.object();
        summary.put("id", decision.id());
        summary.put("object", "decision.summary");
        summary.put("status", decision.status().wire());
        summary.set("created_at", body.get("created_at"));
        JsonNode template = body.path("template");
        if (template.isObject()) {
            summary.putObject("template")
                    .put("id", template.path("id").asText())
                    .put("version", template.path("version").asInt());
        } else {
            summary.putNull("template");
        }
        summary.set("model", body.get("model"));
        summary.putObject("source").set("surface", body.path("source").path("surface"));
        JsonNode extensions = body.path("extensions");
        summary.put(
                "extended",
                !extensions.path("questions").isEmpty()
                        || !extensions.path("options").isEmpty()
                        || !extensions.path("skipped").isEmpty());
        summary.set("act", body.get("act"));
        summary.set("needs_review", body.get("needs_review"));
        ObjectNode answers = summary.putObject("answers");
        body.path("answers").properties().forEach(e -> {
            JsonNode answer = e.getValue();
            ObjectNode brief = answers.putObject(e.getKey());
            brief.set("type", answer.get("type"));
            JsonNode chosen = answer.path("decision");
            brief.set("decision", chosen.isNumber() ? Json.mapper().valueToTree(chosen.asText()) : chosen);
            brief.set("certainty", answer.get("certainty"));
            brief.set("act", answer.get("act"));
        });
        summary.putObject("timing").set("total_ms", body.path("timing").path("total_ms"));
        summary.set("metadata", decision.metadata());
        summary.put("pinned", decision.pinned());
        summary.put("labelled", labelled);
        JsonNode error = body.path("error");
        if (error.isObject()) {
            summary.putObject("error").set("code", error.get("code"));
        } else {
            summary.putNull("error");
        }
        return summary;
    }

    void input(Context ctx) {
        String id = ctx.pathParam("decision_id");
        StoredDecision decision = find(id);
        ObjectNode input = decision.input()
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.INPUT_UNAVAILABLE,
                        "Decision " + id + " was stored " + decision.storage().wire()
                                + ", so its input was not kept."));
        if (input.has("redacted")) {
            var paths = new ArrayList<String>();
            input.get("redacted").forEach(path -> paths.add(path.asText()));
            throw ApiException.of(
                    ErrorCode.INPUT_UNAVAILABLE,
                    "Decision " + id + " was redacted (" + String.join(", ", paths)
                            + "); its input can no longer be read back whole.");
        }
        ObjectNode out = Json.object();
        out.put("object", "decision.input");
        out.put("decision_id", id);
        out.setAll(input);
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
                decision.body(), decision.input(), true, decision.metadata(), decision.pinned(), include);
    }

    private StoredDecision find(String id) {
        return store.find(id).orElseThrow(() -> DecisionView.notFound(id));
    }
}
