package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.Substitution;
import dev.arbor.studio.files.StudioFile;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.DecisionStatus;
import dev.arbor.studio.history.StoreLevel;
import dev.arbor.studio.history.StoredDecision;
import dev.arbor.studio.planning.MediaInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.Planner;
import dev.arbor.studio.questions.Rounding;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a decision is recorded as, typed values in and JSON out: the decision as the API shows it, the row history
 * keeps of it, and what history keeps of its input.
 */
final class DecisionRecords {
    private final StudioFiles files;

    DecisionRecords(StudioFiles files) {
        this.files = requireNonNull(files, "files");
    }

    /**
     * Answers and timings of one run: {@code totalMillis} from arrival (or, in the background, from the end of
     * the queue, plus the queue) to the answers, before they are recorded.
     */
    record Ran(
            Answers.Result answers,
            int inputTokens,
            double queueMillis,
            double loadMillis,
            double modelMillis,
            double totalMillis) {}

    /** A decision at the moment it is written: its status, its times, and its answers or its error. */
    record Step(
            DecisionStatus status,
            long created,
            Optional<Long> completed,
            Optional<Ran> ran,
            Optional<ApiException> error) {
        static Step queued(long created) {
            return new Step(DecisionStatus.QUEUED, created, Optional.empty(), Optional.empty(), Optional.empty());
        }

        static Step completed(long created, long completed, Ran ran) {
            return new Step(
                    DecisionStatus.COMPLETED, created, Optional.of(completed), Optional.of(ran), Optional.empty());
        }

        static Step failed(long created, long completed, ApiException error) {
            return new Step(
                    DecisionStatus.FAILED, created, Optional.of(completed), Optional.empty(), Optional.of(error));
        }
    }

    ObjectNode body(Plan plan, Source source, String id, Step step) {
        Optional<Ran> ran = step.ran();
        ObjectNode body = Json.object();
        body.put("id", id);
        body.put("object", "decision");
        body.put("status", step.status().wire());
        body.put("created_at", step.created() / 1000);
        if (step.completed().isPresent()) {
            body.put("completed_at", step.completed().get() / 1000);
        } else {
            body.putNull("completed_at");
        }
        if (plan.template().isPresent()) {
            var template = plan.template().get();
            ObjectNode json = body.putObject("template");
            json.put("id", template.id());
            json.put("version", template.version());
            json.put("ref", template.reference());
            json.put("resolved_from", template.resolvedFrom());
            json.put("attribution", source.attribution());
        } else {
            body.putNull("template");
        }
        body.put("model", plan.model().orElse(null));
        body.put("model_requested", plan.modelRequested().orElse(null));
        body.set("extensions", plan.extensions().json());
        if (ran.isPresent()) {
            Answers.Result answers = ran.get().answers();
            body.set("answers", answers.answers());
            body.put("act", answers.act());
            ArrayNode review = body.putArray("needs_review");
            answers.needsReview().forEach(review::add);
        } else {
            body.putNull("answers");
            body.putNull("act");
            body.putArray("needs_review");
        }
        body.set("settings", plan.settings().json());
        ObjectNode usage = body.putObject("usage");
        usage.put("input_tokens", ran.map(Ran::inputTokens).filter(t -> t > 0).orElse(plan.estimatedTokens()));
        usage.put("output_tokens", 0);
        ObjectNode timing = body.putObject("timing");
        timing.put("queue_ms", Rounding.round(ran.map(Ran::queueMillis).orElse(0.0), 3));
        timing.put("load_ms", Rounding.round(ran.map(Ran::loadMillis).orElse(0.0), 3));
        timing.put("model_ms", Rounding.round(ran.map(Ran::modelMillis).orElse(0.0), 3));
        timing.put("total_ms", Rounding.round(ran.map(Ran::totalMillis).orElse(0.0), 3));
        body.set("warnings", Json.mapper().valueToTree(plan.warnings()));
        ObjectNode origin = body.putObject("source");
        origin.put("surface", source.surface());
        origin.put("endpoint", source.endpoint());
        origin.put("request_id", source.requestId());
        body.put("rerun_of", source.rerunOf().orElse(null));
        body.put("store", plan.store().wire());
        if (step.error().isPresent()) {
            ApiException error = step.error().get();
            ObjectNode json = body.putObject("error");
            json.put("type", error.code().type());
            json.put("code", error.code().code());
            json.put("message", error.problems().getFirst().message());
        } else {
            body.putNull("error");
        }
        ran.ifPresent(r -> body.set("raw_probabilities", r.answers().raw()));
        return body;
    }

    StoredDecision record(Plan plan, Source source, String id, Step step, ObjectNode body, Optional<ObjectNode> input) {
        Optional<Ran> ran = step.ran();
        return new StoredDecision(
                id,
                step.status(),
                plan.store() == StoreLevel.NONE ? StoreLevel.FULL : plan.store(),
                source.surface(),
                source.endpoint(),
                source.requestId(),
                plan.template().map(t -> t.id()),
                plan.template().map(t -> t.version()),
                plan.model(),
                ran.map(r -> r.answers().act()),
                ran.map(r -> r.answers().minCertainty()),
                step.error().map(error -> error.code().code()),
                false,
                plan.metadata(),
                source.rerunOf(),
                step.created(),
                step.completed(),
                ran.map(r -> Rounding.round(r.totalMillis(), 3)),
                body,
                input,
                ran.map(r -> r.answers().rows()).orElse(List.of()),
                plan.secrets(),
                input.map(i -> searchText(plan)));
    }

    private static final int MAX_SEARCH_TEXT = 200_000;

    /** What search finds a decision by: its situation as stored (sensitive values masked) and its text variables. */
    private static String searchText(Plan plan) {
        var text = new StringBuilder(Substitution.asText(plan.storedState()));
        plan.storedVariables()
                .ifPresent(variables -> variables.properties().forEach(e -> {
                    if (e.getValue().isTextual() && !e.getValue().textValue().startsWith("data:")) {
                        text.append('\n').append(e.getValue().textValue());
                    }
                }));
        return text.length() > MAX_SEARCH_TEXT ? text.substring(0, MAX_SEARCH_TEXT) : text.toString();
    }

    /**
     * What the decision read, as history keeps it: sensitive values as HMACs and markers, media as hashes, and, when
     * {@code keepMedia}, as files (a new one for bytes sent inline; the upload itself for a file id). Sensitive
     * media are never kept.
     */
    ObjectNode input(Plan plan, boolean keepMedia) {
        ObjectNode input = Json.object();
        ArrayNode items = Json.mapper().createArrayNode();
        var keptIds = new HashMap<String, String>();
        for (MediaInput item : plan.media()) {
            boolean sensitive = item.variable().map(v -> plan.secrets().has(v)).orElse(false);
            boolean kept = keepMedia && !sensitive;
            Optional<MediaInput.InlineBytes> inline =
                    item.inline() ? Optional.of(item.inlineBytes()) : Optional.empty();
            StudioFile file = item.file().orElse(null);
            if (kept && file == null) {
                file = item.keep(files);
            }
            ObjectNode json = items.addObject();
            json.put("type", item.type());
            json.put("file_id", kept ? file.id() : null);
            json.put("name", sensitive ? null : item.name().orElse(null));
            json.put("variable", item.variable().orElse(null));
            json.put("content_type", item.contentType());
            json.put(
                    "bytes",
                    inline.map(MediaInput.InlineBytes::size)
                            .orElseGet(() -> item.file().orElseThrow().bytes()));
            json.put(
                    "sha256",
                    sensitive
                            ? plan.secrets().path(item.variable().orElseThrow()).asText()
                            : "sha256:"
                                    + inline.map(MediaInput.InlineBytes::sha256)
                                            .orElseGet(() ->
                                                    item.file().orElseThrow().sha256()));
            json.put("available", kept);
            if (kept) {
                item.variable()
                        .ifPresent(v -> keptIds.put(v, json.get("file_id").textValue()));
            }
        }
        input.set(
                "variables",
                plan.storedVariables()
                        .map(v -> (JsonNode) withMediaMarkers(v, plan, keptIds))
                        .orElse(null));
        input.set("state", plan.storedState());
        input.set("media", items);
        input.set("questions", Planner.questionsJson(plan.questions()));
        input.put("rendered_state", Substitution.asText(plan.storedState()));
        return input;
    }

    /** A media variable reads as the file history kept, or says that its bytes were not kept. */
    private static ObjectNode withMediaMarkers(ObjectNode variables, Plan plan, Map<String, String> keptIds) {
        ObjectNode copy = variables.deepCopy();
        for (MediaInput item : plan.media()) {
            item.variable()
                    .filter(v -> copy.path(v).isTextual() && !plan.secrets().has(v))
                    .ifPresent(v ->
                            copy.put(v, keptIds.containsKey(v) ? keptIds.get(v) : "[" + item.type() + " not kept]"));
        }
        return copy;
    }
}
