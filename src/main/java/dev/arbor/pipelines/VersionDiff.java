package dev.arbor.pipelines;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.json.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What changed between two saved versions of a pipeline's definition. The steps are compared by their ids, not their
 * places in the list, so that moving a step is not a change of every step after it: in the operations' paths
 * (RFC 6902 style: {@code add}, {@code remove}, {@code replace}) a step is {@code /steps/<id>}, and any other list
 * (parameters, {@code depends_on}) is replaced whole when it differs, its order carrying meaning.
 */
record VersionDiff(
        String object,
        @JsonProperty("pipeline_id") String pipelineId,
        int from,
        int to,
        @JsonProperty("steps_added") List<String> stepsAdded,
        @JsonProperty("steps_removed") List<String> stepsRemoved,
        @JsonProperty("steps_changed") List<String> stepsChanged,
        List<Change> changes) {

    /** One operation that turns the older definition into the newer; {@code value} is what {@code path} becomes. */
    record Change(
            String op,
            String path,

            @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable
            JsonNode value) {}

    /**
     * The changes from version {@code against} (by default the one before) to version {@code version} of a pipeline:
     * 404 {@code pipeline_version_not_found} at {@code version} or {@code against} for a version it never had.
     */
    static VersionDiff of(PipelineStore store, String pipelineId, String version, Optional<String> against) {
        String id = store.require(pipelineId).id();
        int to = number("version", version);
        if (against.isEmpty() && to == 1) {
            throw ApiException.of(
                    ErrorCode.INVALID_PARAMETER,
                    "against",
                    "Version 1 has no version before it; name the one to compare with in ?against=.");
        }
        int from = against.isPresent() ? number("against", against.get()) : to - 1;
        ObjectNode older = definition(store, id, from, "against");
        ObjectNode newer = definition(store, id, to, "version");
        var changes = new ArrayList<Change>();
        diff("", keyedSteps(older), keyedSteps(newer), changes);
        JsonNode oldSteps = keyedSteps(older).path("steps");
        JsonNode newSteps = keyedSteps(newer).path("steps");
        var added = new ArrayList<String>();
        var removed = new ArrayList<String>();
        var changed = new ArrayList<String>();
        newSteps.properties().forEach(step -> {
            if (!oldSteps.has(step.getKey())) {
                added.add(step.getKey());
            } else if (!oldSteps.get(step.getKey()).equals(step.getValue())) {
                changed.add(step.getKey());
            }
        });
        oldSteps.fieldNames().forEachRemaining(step -> {
            if (!newSteps.has(step)) {
                removed.add(step);
            }
        });
        return new VersionDiff("pipeline.version_diff", id, from, to, added, removed, changed, changes);
    }

    private static int number(String param, String text) {
        try {
            int version = Integer.parseInt(text.trim());
            if (version >= 1) {
                return version;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiException.of(
                ErrorCode.INVALID_PARAMETER, param, "`" + param + "` must be a version number (1 or more).");
    }

    private static ObjectNode definition(PipelineStore store, String pipelineId, int version, String param) {
        return store.version(pipelineId, version)
                .map(PipelineStore.Version::definition)
                .orElseThrow(() -> ApiException.of(
                        ErrorCode.PIPELINE_VERSION_NOT_FOUND,
                        param,
                        "Pipeline " + pipelineId + " has no version " + version + "; GET /pipelines/" + pipelineId
                                + "/versions lists them."));
    }

    /** The definition with its steps as an object by id, in their order. */
    private static ObjectNode keyedSteps(ObjectNode definition) {
        ObjectNode copy = definition.deepCopy();
        ObjectNode steps = Json.object();
        for (JsonNode step : definition.path("steps")) {
            steps.set(step.path("id").asText(), step);
        }
        copy.set("steps", steps);
        return copy;
    }

    private static void diff(String path, JsonNode from, JsonNode to, List<Change> changes) {
        if (from.isObject() && to.isObject()) {
            from.fieldNames().forEachRemaining(key -> {
                if (!to.has(key)) {
                    changes.add(new Change("remove", path + "/" + escape(key), null));
                }
            });
            to.properties().forEach(field -> {
                String child = path + "/" + escape(field.getKey());
                if (!from.has(field.getKey())) {
                    changes.add(new Change("add", child, field.getValue()));
                } else {
                    diff(child, from.get(field.getKey()), field.getValue(), changes);
                }
            });
            return;
        }
        if (!from.equals(to)) {
            changes.add(new Change("replace", path, to));
        }
    }

    /** RFC 6901: {@code ~} becomes {@code ~0} and {@code /} becomes {@code ~1}. */
    private static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }
}
