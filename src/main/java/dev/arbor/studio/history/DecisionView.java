package dev.arbor.studio.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.util.Optional;
import java.util.Set;

/** The one rendering of a stored decision, shared by the routes that answer with one. */
public final class DecisionView {
    private DecisionView() {}

    /** The API form of a decision: its body with metadata, pin and, when asked, input and raw answers. */
    public static ObjectNode present(
            Decided decided,
            Optional<DecisionInput> input,
            boolean showInput,
            ObjectNode metadata,
            boolean pinned,
            Set<String> include) {
        ObjectNode out = Json.object();
        ObjectNode body = DecidedCodec.write(decided);
        JsonNode raw = body.path("raw_probabilities");
        body.properties().forEach(e -> {
            if (e.getKey().equals("raw_probabilities")) {
                return;
            }
            out.set(e.getKey(), e.getValue());
            if (e.getKey().equals("model_requested") && showInput) {
                out.set(
                        "input",
                        input.map(i -> {
                                    ObjectNode copy = i.json();
                                    if (!include.contains("input.rendered_state")) {
                                        copy.remove("rendered_state");
                                    }
                                    return (JsonNode) copy;
                                })
                                .orElse(null));
            }
        });
        if (include.contains("answers.raw_probabilities") && out.path("answers").isObject()) {
            ObjectNode answers = ((ObjectNode) out.get("answers")).deepCopy();
            answers.properties()
                    .forEach(e -> ((ObjectNode) e.getValue()).set("raw_probabilities", raw.path(e.getKey())));
            out.set("answers", answers);
        }
        out.set("metadata", metadata);
        out.put("pinned", pinned);
        return out;
    }

    /** The answer when history has no such decision. */
    public static ApiException notFound(String id) {
        return ApiException.of(
                ErrorCode.DECISION_NOT_FOUND,
                "decision_id",
                "There is no decision " + id + " in "
                        + "history: it never existed, was deleted, or was made with store none.");
    }
}
