package dev.arbor.studio.fitting;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** A fit as the API shows it; times in Unix seconds, null until they happen. */
@JsonPropertyOrder({
    "id",
    "object",
    "status",
    "progress",
    "template",
    "model",
    "questions",
    "version",
    "heads",
    "error",
    "created_at",
    "started_at",
    "completed_at"
})
record FitView(
        String id,
        String status,
        Progress progress,
        Template template,
        String model,
        List<String> questions,
        @Nullable Integer version,
        @Nullable ObjectNode heads,
        @Nullable ObjectNode error,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("started_at") @Nullable Long startedAt,
        @JsonProperty("completed_at") @Nullable Long completedAt) {

    record Progress(int done, int total) {}

    record Template(String id, @JsonProperty("base_version") int baseVersion) {}

    static FitView of(FitStore.Stored fit) {
        return new FitView(
                fit.id(),
                fit.status().wire(),
                new Progress(fit.done(), fit.total()),
                new Template(fit.templateId(), fit.baseVersion()),
                fit.model(),
                fit.questions(),
                fit.version().orElse(null),
                fit.heads().orElse(null),
                fit.error().orElse(null),
                fit.createdAtMillis() / 1000,
                fit.startedAtMillis().map(at -> at / 1000).orElse(null),
                fit.completedAtMillis().map(at -> at / 1000).orElse(null));
    }

    @JsonProperty("object")
    String object() {
        return "fit";
    }
}
