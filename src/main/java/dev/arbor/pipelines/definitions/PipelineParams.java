package dev.arbor.pipelines.definitions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.actions.ParamRules;
import dev.arbor.platform.actions.ParamSpec;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;

/**
 * What pipeline params mean beyond their shape: a {@code {{ }}} template is known when its step runs; branches are an
 * object of named branches, each {@code {condition, steps}}; references are looked up when the step runs (a step may
 * refer to a model an earlier step adds).
 */
public final class PipelineParams implements ParamRules {
    public static final PipelineParams RULES = new PipelineParams();

    private PipelineParams() {}

    @Override
    public boolean knownAtRunTime(JsonNode value) {
        return Templates.hasReference(value);
    }

    @Override
    public void checkBranches(ParamSpec spec, JsonNode value, String param, Problems problems) {
        if (!value.isObject() || value.isEmpty()) {
            ParamSpec.invalid(problems, param, "must be an object of named branches, each {condition, steps}");
            return;
        }
        for (var branch : value.properties()) {
            String at = ParamPath.key(param, branch.getKey());
            JsonNode condition = branch.getValue().path("condition");
            JsonNode steps = branch.getValue().path("steps");
            if (!condition.isTextual() || condition.textValue().isBlank()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at + ".condition",
                        "`" + at + ".condition` must be a boolean " + "expression.");
            }
            if (!steps.isArray() || steps.isEmpty()) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at + ".steps",
                        "`" + at + ".steps` must list the ids of the " + "steps this branch leads to.");
            }
        }
    }

    @Override
    public void checkReference(ParamSpec.Type type, String id, String param, Problems problems) {}
}
