package dev.arbor.triggers;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.triggers.FiringStore.Attempt;
import dev.arbor.triggers.FiringStore.Firing;
import dev.arbor.triggers.Trigger.Target;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/** Triggers and their firings as the API shows them. */
final class TriggerViews {
    private TriggerViews() {}

    /** A trigger; {@code signing_secret} only in the answer that made or rotated it. */
    record TriggerView(
            String id,
            String object,
            @JsonProperty("project_id") String projectId,
            String name,
            @JsonProperty("connection_id") String connectionId,
            @JsonProperty("event_types") List<String> eventTypes,
            ObjectNode filter,
            TargetView target,
            boolean enabled,
            @JsonProperty("debounce_seconds") int debounceSeconds,
            @JsonProperty("correlation_key") @Nullable String correlationKey,
            @JsonProperty("created_at") long createdAt,
            @JsonProperty("updated_at") long updatedAt,

            @JsonProperty("signing_secret") @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            String signingSecret) {
        static TriggerView of(Trigger trigger) {
            return of(new TriggerEditor.Saved(trigger, Optional.empty()));
        }

        static TriggerView of(TriggerEditor.Saved saved) {
            Trigger trigger = saved.trigger();
            return new TriggerView(
                    trigger.id(),
                    "trigger",
                    trigger.projectId(),
                    trigger.name(),
                    trigger.connectionId(),
                    trigger.eventTypes(),
                    trigger.filter().toJson(),
                    TargetView.of(trigger.target()),
                    trigger.enabled(),
                    trigger.debounceSeconds(),
                    trigger.correlationKey().map(k -> k.text()).orElse(null),
                    trigger.createdAt().getEpochSecond(),
                    trigger.updatedAt().getEpochSecond(),
                    saved.signingSecret().orElse(null));
        }
    }

    /** Where a trigger sends what it fires: a pipeline with its params, or a URL (its secret never shown here). */
    sealed interface TargetView {
        record Pipeline(@JsonProperty("pipeline_id") String pipelineId, ObjectNode params) implements TargetView {}

        record Url(
                String url,
                @JsonProperty("secret_set") boolean secretSet,

                @JsonProperty("previous_secret_expires_at") @Nullable
                Long previousSecretExpiresAt)
                implements TargetView {}

        static TargetView of(Target target) {
            return switch (target) {
                case Target.Pipeline pipeline -> new Pipeline(pipeline.pipelineId(), pipeline.params());
                case Target.Url url ->
                    new Url(
                            url.url(),
                            true,
                            url.previous()
                                    .map(p -> p.expiresAt().getEpochSecond())
                                    .orElse(null));
            };
        }
    }

    /** What a trigger fired for one delivery and round, with its attempts at a URL. */
    record FiringView(
            String id,
            String object,
            @JsonProperty("trigger_id") String triggerId,
            @JsonProperty("delivery_id") String deliveryId,
            int round,
            String status,
            @JsonProperty("run_id") @Nullable String runId,
            @JsonProperty("event_count") int eventCount,
            @JsonProperty("merged_into") @Nullable String mergedInto,
            @JsonProperty("correlation_value") @Nullable JsonNode correlationValue,
            @Nullable String error,
            List<AttemptView> attempts,
            @JsonProperty("fired_at") long firedAt,
            @JsonProperty("updated_at") long updatedAt) {
        static FiringView of(Firing firing, List<Attempt> attempts) {
            return new FiringView(
                    firing.id(),
                    "trigger.firing",
                    firing.triggerId(),
                    firing.deliveryId(),
                    firing.round(),
                    FiringStore.wire(firing.status()),
                    firing.runId().orElse(null),
                    firing.eventCount(),
                    firing.mergedInto().orElse(null),
                    firing.correlationValue().map(Json::read).orElse(null),
                    firing.error().orElse(null),
                    attempts.stream().map(AttemptView::of).toList(),
                    firing.firedAt().getEpochSecond(),
                    firing.updatedAt().getEpochSecond());
        }
    }

    record AttemptView(
            int attempt,
            long at,
            @JsonProperty("status_code") @Nullable Integer statusCode,
            @Nullable String error) {
        static AttemptView of(Attempt attempt) {
            return new AttemptView(
                    attempt.attempt(),
                    attempt.at().getEpochSecond(),
                    attempt.statusCode().isPresent() ? attempt.statusCode().getAsInt() : null,
                    attempt.error().orElse(null));
        }
    }

    /** A trigger deleted (what it fired stays in the log). */
    record Deleted(String id, String object, boolean deleted) {}
}
