package dev.arbor.studio.evals;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * An eval as the API shows it: its status and progress, the fields of the request that started it as they were
 * sent, its results (null until it has some) and its ending; times in Unix seconds, null until they happen.
 */
@JsonPropertyOrder({"id", "object", "status", "progress", "results", "error", "created_at", "started_at", "completed_at"
})
record EvalView(
        String id,
        String status,
        Progress progress,
        @JsonIgnore ObjectNode request,
        @Nullable ObjectNode results,
        @Nullable ObjectNode error,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("started_at") @Nullable Long startedAt,
        @JsonProperty("completed_at") @Nullable Long completedAt) {

    record Progress(int done, int total, int failed) {}

    static EvalView of(EvalStore.Stored eval) {
        return new EvalView(
                eval.id(),
                eval.status().wire(),
                new Progress(eval.done(), eval.total(), eval.failedItems()),
                eval.request(),
                eval.results().orElse(null),
                eval.error().orElse(null),
                eval.createdAtMillis() / 1000,
                eval.startedAtMillis().map(at -> at / 1000).orElse(null),
                eval.completedAtMillis().map(at -> at / 1000).orElse(null));
    }

    @JsonProperty("object")
    String object() {
        return "eval";
    }

    /** The request's fields, each at the top level as the eval was asked for. */
    @JsonAnyGetter
    Map<String, JsonNode> requested() {
        var fields = new LinkedHashMap<String, JsonNode>();
        request.properties().forEach(field -> fields.put(field.getKey(), field.getValue()));
        return fields;
    }

    /** One item's answers on one target, and what its labels expected. */
    @JsonPropertyOrder({"id", "object", "target", "position", "source", "split", "decision_id", "expected"})
    record Item(
            String id,
            int target,
            int position,
            String source,
            @Nullable String split,
            @JsonProperty("decision_id") @Nullable String decisionId,
            ObjectNode expected,
            @Nullable ObjectNode answers,
            @Nullable ObjectNode error) {
        static Item of(EvalStore.Item item) {
            return new Item(
                    item.id(),
                    item.target(),
                    item.position(),
                    item.source(),
                    item.split().orElse(null),
                    item.decisionId().orElse(null),
                    item.expected(),
                    item.answers().orElse(null),
                    item.error().orElse(null));
        }

        @JsonProperty("object")
        String object() {
            return "eval.item";
        }
    }
}
