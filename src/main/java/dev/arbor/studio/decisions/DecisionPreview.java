package dev.arbor.studio.decisions;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.studio.history.DecisionInput;
import dev.arbor.studio.planning.Plan;
import dev.arbor.studio.planning.SettingsLadder;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The preview of a decision: every check up to the model, what the model would be sent, and the single-request
 * body ({@code POST /v1/decide}) that asks the same.
 */
@JsonPropertyOrder({
    "object",
    "template",
    "model",
    "state",
    "rendered_state",
    "questions",
    "extensions",
    "media",
    "settings",
    "usage",
    "decide_request",
    "store",
    "warnings"
})
record DecisionPreview(
        @Nullable Template template,
        @Nullable String model,
        @Nullable JsonNode state,
        @JsonProperty("rendered_state") @Nullable JsonNode renderedState,
        @Nullable JsonNode questions,
        ObjectNode extensions,
        @Nullable JsonNode media,
        ObjectNode settings,
        Usage usage,
        @JsonProperty("decide_request") DecideRequest decideRequest,
        String store,
        List<Warning> warnings) {

    /** The template version the decision would use; a preview always names it explicitly. */
    @JsonPropertyOrder({"id", "version", "ref", "resolved_from", "attribution"})
    record Template(
            String id,
            int version,
            String ref,
            @JsonProperty("resolved_from") String resolvedFrom) {
        @JsonProperty("attribution")
        String attribution() {
            return "explicit";
        }
    }

    record Usage(@JsonProperty("input_tokens") int inputTokens) {}

    /** The same decision as one single-request body; the temperature only when it is not the default. */
    record DecideRequest(
            @Nullable String model,
            JsonNode state,
            @Nullable JsonNode questions,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            Temperature settings) {}

    record Temperature(double temperature) {}

    static DecisionPreview of(Plan plan, DecisionInput kept) {
        ObjectNode input = kept.json();
        var warnings = new ArrayList<>(plan.warnings());
        plan.settings().json().path("questions").properties().forEach(e -> {
            if (e.getValue().has("temperature")
                    && e.getValue().get("temperature").doubleValue()
                            != plan.settings().temperature()) {
                warnings.add(new Warning(
                        WarningCode.PER_QUESTION_SETTINGS_NOT_PORTABLE,
                        "`" + e.getKey()
                                + "` has its own temperature; the single-request format sends one temperature for all "
                                + "questions.",
                        "settings.questions." + e.getKey() + ".temperature"));
            }
        });
        return new DecisionPreview(
                plan.template()
                        .map(t -> new Template(t.id(), t.version(), t.reference(), t.resolvedFrom()))
                        .orElse(null),
                plan.model().orElse(null),
                input.get("state"),
                input.get("rendered_state"),
                input.get("questions"),
                plan.extensions().json(),
                input.get("media"),
                plan.settings().json(),
                new Usage(plan.estimatedTokens()),
                new DecideRequest(
                        plan.model().orElse(null),
                        plan.storedState(),
                        input.get("questions"),
                        plan.settings().temperature() != SettingsLadder.DEFAULT_TEMPERATURE
                                ? new Temperature(plan.settings().temperature())
                                : null),
                plan.store().wire(),
                warnings);
    }

    @JsonProperty("object")
    String object() {
        return "decision.preview";
    }
}
