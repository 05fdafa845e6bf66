package dev.arbor.platform.actions;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.errors.Problems;

/**
 * What a parameter's value means to the feature whose catalog declares it, beyond its shape: whether it is known
 * only when the action runs, how its branches look, and whether a reference names something the caller may use.
 */
public interface ParamRules {
    /** Whether a value is filled in when the action runs (a pipeline's {@code {{ }}} template): checked then. */
    boolean knownAtRunTime(JsonNode value);

    /** Checks a {@code branches} value, adding what is wrong at {@code param} or below it. */
    void checkBranches(ParamSpec spec, JsonNode value, String param, Problems problems);

    /** Checks that a well-formed reference of a {@code *_ref} type names something the caller may use. */
    void checkReference(ParamSpec.Type type, String id, String param, Problems problems);
}
