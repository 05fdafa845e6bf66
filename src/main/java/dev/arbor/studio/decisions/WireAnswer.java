package dev.arbor.studio.decisions;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.arbor.studio.history.Decided;
import dev.arbor.studio.questions.AnswerCodec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The single-request answer of a decision: its model, its answers without the studio's gate, and usage.
 *
 * @param model the model's id, or what the caller named (a deployment); null when no model answered
 */
record WireAnswer(@Nullable JsonNode model, Map<String, ObjectNode> answers, Usage usage) {
    private static final Set<String> GATE_FIELDS = Set.of("certainty", "act", "origin", "dynamic_options");

    record Usage(
            @JsonProperty("input_tokens") int inputTokens,
            @JsonProperty("output_tokens") int outputTokens) {}

    static WireAnswer of(Decided decision) {
        var answers = new LinkedHashMap<String, ObjectNode>();
        decision.answered().map(Decided.Answered::answers).orElse(Map.of()).forEach((key, given) -> {
            ObjectNode answer = AnswerCodec.write(given);
            answer.remove(GATE_FIELDS);
            answers.put(key, answer);
        });
        return new WireAnswer(
                decision.model().<JsonNode>map(TextNode::valueOf).orElse(null),
                answers,
                new Usage(decision.inputTokens(), 0));
    }

    /** This answer, its model named as {@code model}. */
    WireAnswer namedAs(JsonNode model) {
        return new WireAnswer(model, answers, usage);
    }
}
