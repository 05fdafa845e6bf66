package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.questions.AnswerCodec;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link Decided} as JSON, and back: the body the API answers with and history's {@code body} column, in the
 * contract's field order. The one place that knows the decision's field names.
 */
public final class DecidedCodec {
    private DecidedCodec() {}

    public static ObjectNode write(Decided decided) {
        ObjectNode body = Json.object();
        body.put("id", decided.id());
        body.put("object", "decision");
        body.put("status", decided.status().wire());
        body.put("created_at", decided.createdAt());
        body.put("completed_at", decided.completedAt().orElse(null));
        if (decided.template().isPresent()) {
            Decided.Template template = decided.template().get();
            ObjectNode json = body.putObject("template");
            json.put("id", template.id());
            json.put("version", template.version());
            json.put("ref", template.ref());
            json.put("resolved_from", template.resolvedFrom());
            json.put("attribution", template.attribution());
        } else {
            body.putNull("template");
        }
        body.put("model", decided.model().orElse(null));
        body.put("model_requested", decided.modelRequested().orElse(null));
        body.set("extensions", decided.extensions().json());
        if (decided.answered().isPresent()) {
            Decided.Answered answered = decided.answered().get();
            body.set("answers", AnswerCodec.writeAll(answered.answers()));
            body.put("act", answered.act());
            ArrayNode review = body.putArray("needs_review");
            answered.needsReview().forEach(review::add);
        } else {
            body.putNull("answers");
            body.putNull("act");
            body.putArray("needs_review");
        }
        body.set("settings", decided.settings().json());
        ObjectNode usage = body.putObject("usage");
        usage.put("input_tokens", decided.inputTokens());
        usage.put("output_tokens", 0);
        ObjectNode timing = body.putObject("timing");
        timing.put("queue_ms", decided.timing().queueMs());
        timing.put("load_ms", decided.timing().loadMs());
        timing.put("model_ms", decided.timing().modelMs());
        timing.put("total_ms", decided.timing().totalMs());
        body.set("warnings", Json.mapper().valueToTree(decided.warnings()));
        ObjectNode source = body.putObject("source");
        source.put("surface", decided.source().surface());
        source.put("endpoint", decided.source().endpoint());
        source.put("request_id", decided.source().requestId());
        body.put("rerun_of", decided.rerunOf().orElse(null));
        body.put("store", decided.store().wire());
        if (decided.error().isPresent()) {
            Decided.Failure failure = decided.error().get();
            ObjectNode json = body.putObject("error");
            json.put("type", failure.type());
            json.put("code", failure.code());
            json.put("message", failure.message());
        } else {
            body.putNull("error");
        }
        decided.answered().ifPresent(answered -> {
            ObjectNode raw = body.putObject("raw_probabilities");
            answered.raw().forEach((key, own) -> own.forEach(raw.putObject(key)::put));
        });
        return body;
    }

    /** Reads a decision as {@link #write} wrote it (history's column, whatever its status). */
    public static Decided read(JsonNode body) {
        Wire wire = Json.mapper().convertValue(body, Wire.class);
        return new Decided(
                requireNonNull(wire.id(), "id"),
                DecisionStatus.parse(wire.status())
                        .orElseThrow(() -> new IllegalArgumentException("decision without a status: " + wire.id())),
                wire.createdAt(),
                Optional.ofNullable(wire.completedAt()),
                Optional.ofNullable(wire.template())
                        .map(t -> new Decided.Template(
                                t.id(),
                                t.version(),
                                t.ref(),
                                t.resolvedFrom(),
                                Optional.ofNullable(t.attribution()).orElse("explicit"))),
                Optional.ofNullable(wire.model()),
                Optional.ofNullable(wire.modelRequested()),
                Extensions.read(wire.extensions()),
                Optional.ofNullable(wire.answers())
                        .filter(JsonNode::isObject)
                        .map(answers -> new Decided.Answered(
                                AnswerCodec.readAll(answers),
                                Boolean.TRUE.equals(wire.act()),
                                Optional.ofNullable(wire.needsReview()).orElse(List.of()),
                                Optional.ofNullable(wire.raw()).orElse(Map.of()))),
                AppliedSettings.read(wire.settings()),
                wire.usage().inputTokens(),
                new Decided.Timing(
                        wire.timing().queueMs(),
                        wire.timing().loadMs(),
                        wire.timing().modelMs(),
                        wire.timing().totalMs()),
                Optional.ofNullable(wire.warnings()).orElse(List.of()),
                new Decided.Caller(
                        wire.source().surface(),
                        wire.source().endpoint(),
                        wire.source().requestId()),
                Optional.ofNullable(wire.rerunOf()),
                StoreLevel.of(wire.store()),
                Optional.ofNullable(wire.error()).map(e -> new Decided.Failure(e.type(), e.code(), e.message())));
    }

    /** The decision's JSON as Jackson binds it; only {@link #read} sees it, and turns its nulls into optionals. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    private record Wire(
            String id,
            String status,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("completed_at") Long completedAt,
            WireTemplate template,
            String model,
            @JsonProperty("model_requested") String modelRequested,
            JsonNode extensions,
            JsonNode answers,
            Boolean act,
            @JsonProperty("needs_review") List<String> needsReview,
            JsonNode settings,
            Usage usage,
            WireTiming timing,
            List<Warning> warnings,
            WireSource source,
            @JsonProperty("rerun_of") String rerunOf,
            String store,
            WireError error,
            @JsonProperty("raw_probabilities") Map<String, Map<String, Double>> raw) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record WireTemplate(
            String id,
            int version,
            String ref,
            @JsonProperty("resolved_from") String resolvedFrom,
            String attribution) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record Usage(@JsonProperty("input_tokens") int inputTokens) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record WireTiming(
            @JsonProperty("queue_ms") double queueMs,
            @JsonProperty("load_ms") double loadMs,
            @JsonProperty("model_ms") double modelMs,
            @JsonProperty("total_ms") double totalMs) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record WireSource(
            String surface,
            String endpoint,
            @JsonProperty("request_id") String requestId) {}

    @JsonIgnoreProperties(ignoreUnknown = true)
    private record WireError(String type, String code, String message) {}
}
