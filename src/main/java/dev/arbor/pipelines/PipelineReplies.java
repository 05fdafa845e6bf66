package dev.arbor.pipelines;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The replies of the pipelines' own routes, as the API shows them. */
final class PipelineReplies {
    private PipelineReplies() {}

    /** A pipeline: its definition at its current version, and whether it is paused. */
    record PipelineReply(
            String id,
            String object,
            String name,
            String description,
            int version,
            @JsonProperty("step_count") int stepCount,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("updated_at") long updatedAt,
            String status,
            @JsonProperty("paused_at") @Nullable Long pausedAt,
            JsonNode definition) {

        static PipelineReply of(PipelineStore.Stored stored) {
            return new PipelineReply(
                    stored.id(),
                    "pipeline",
                    stored.definition().path("name").asText(),
                    stored.definition().path("description").asText(),
                    stored.version(),
                    stored.stepCount(),
                    stored.createdAtMillis() / 1000,
                    stored.updatedAtMillis() / 1000,
                    stored.paused() ? "paused" : "active",
                    stored.pausedAtMillis().isPresent()
                            ? stored.pausedAtMillis().getAsLong() / 1000
                            : null,
                    stored.definition());
        }
    }

    /** What checking one action's params found. */
    record ActionValidation(String object, boolean valid, List<Map<String, Object>> errors) {
        ActionValidation(List<Map<String, Object>> errors) {
            this("action.validation", errors.isEmpty(), errors);
        }
    }

    /** What checking a pipeline's definition found, and how many steps it has. */
    record PipelineValidation(
            String object,
            boolean valid,
            List<Map<String, Object>> errors,
            @JsonProperty("step_count") int stepCount) {
        PipelineValidation(List<Map<String, Object>> errors, int stepCount) {
            this("pipeline.validation", errors.isEmpty(), errors, stepCount);
        }
    }

    /** A deleted pipeline. */
    record Deleted(String id, String object, boolean deleted) {
        Deleted(String id) {
            this(id, "pipeline.deleted", true);
        }
    }

    /** A pipeline's webhook: its URL and its secrets' times; the secret itself only in the answer that made it. */
    record WebhookReply(
            String object,
            @JsonProperty("pipeline_id") String pipelineId,
            String url,
            boolean enabled,
            @JsonProperty("secret_created_at") @Nullable Long secretCreatedAt,

            @JsonProperty("previous_secret_expires_at") @Nullable
            Long previousSecretExpiresAt,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            String secret) {}

    /** The run a webhook call started, or the one its first delivery started ({@code duplicate}). */
    record WebhookCallReply(
            String object,
            @JsonProperty("pipeline_id") String pipelineId,
            @JsonProperty("webhook_id") String webhookId,
            @JsonProperty("run_id") String runId,
            boolean duplicate) {
        WebhookCallReply(String pipelineId, String webhookId, String runId, boolean duplicate) {
            this("pipeline.webhook_call", pipelineId, webhookId, runId, duplicate);
        }
    }

    /** A saved definition of a pipeline: what runs started on that version ran. */
    record VersionReply(
            String object,
            @JsonProperty("pipeline_id") String pipelineId,
            int version,
            @JsonProperty("created_at") long createdAt,
            JsonNode definition) {
        static VersionReply of(PipelineStore.Version version) {
            return new VersionReply(
                    "pipeline.version",
                    version.pipelineId(),
                    version.version(),
                    version.createdAtMillis() / 1000,
                    version.definition());
        }
    }
}
