package dev.arbor.pipelines.control;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.arbor.pipelines.runs.store.ApprovalStore;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** An approval step's question as the API shows it, with its answer once it has one. */
record ApprovalReply(
        String id,
        String object,
        @JsonProperty("run_id") String runId,
        @JsonProperty("step_id") String stepId,
        @JsonProperty("pipeline_id") String pipelineId,
        String status,
        String message,
        List<String> approvers,
        @JsonProperty("on_timeout") String onTimeout,
        @JsonProperty("requested_at") long requestedAt,
        @JsonProperty("expires_at") long expiresAt,
        @JsonProperty("decided_by") @Nullable String decidedBy,
        @JsonProperty("decided_at") @Nullable Long decidedAt,
        @Nullable String comment) {

    static ApprovalReply of(ApprovalStore.Approval approval) {
        return new ApprovalReply(
                approval.id(),
                "pipeline.approval",
                approval.runId(),
                approval.stepId(),
                approval.pipelineId(),
                approval.status().json(),
                approval.message(),
                approval.approvers(),
                approval.onTimeout() == ApprovalStore.Status.APPROVED ? "approve" : "reject",
                approval.requestedAt() / 1000,
                approval.expiresAt() / 1000,
                approval.decidedBy().orElse(null),
                approval.decidedAt().isPresent() ? approval.decidedAt().getAsLong() / 1000 : null,
                approval.comment().orElse(null));
    }
}
