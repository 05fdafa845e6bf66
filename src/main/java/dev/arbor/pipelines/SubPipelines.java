package dev.arbor.pipelines;

import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.ParamPath;
import dev.arbor.platform.errors.Problems;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The checks of a definition's Run Pipeline steps against the pipelines stored: each names a pipeline by its id (not a
 * template, so that it can be followed), that pipeline exists, and following Run Pipeline steps from it never comes
 * back to the pipeline being saved (400 {@code pipeline_cycle}).
 */
final class SubPipelines {
    private static final String RUN_PIPELINE = "run_pipeline";

    private SubPipelines() {}

    /** Throws every problem of {@code definition}'s Run Pipeline steps, saved as {@code savedAs} when it has an id. */
    static void check(PipelineDefinition definition, Optional<String> savedAs, PipelineStore store) {
        var problems = new Problems();
        for (int i = 0; i < definition.steps().size(); i++) {
            PipelineDefinition.Step step = definition.steps().get(i);
            if (!step.action().equals(RUN_PIPELINE)) {
                continue;
            }
            String at = ParamPath.index("steps", i) + ".params.pipeline_id";
            String target = step.params().path("pipeline_id").asText();
            if (target.contains("{{") || target.contains("{%")) {
                problems.add(
                        ErrorCode.INVALID_FIELD,
                        at,
                        "`" + at + "` must name a pipeline by its id, not a template: a cycle of pipelines is found "
                                + "when they are saved.");
            } else if (store.find(target).isEmpty()) {
                problems.add(ErrorCode.INVALID_FIELD, at, "`" + at + "` names no pipeline ('" + target + "').");
            } else if (savedAs.isPresent()) {
                pathTo(target, savedAs.get(), store)
                        .ifPresent(path -> problems.add(
                                ErrorCode.PIPELINE_CYCLE,
                                at,
                                "`" + at + "` would make a cycle of pipelines: " + savedAs.get() + " runs "
                                        + String.join(", which runs ", path) + "."));
            }
        }
        problems.throwIfAny();
    }

    /** The pipelines from {@code from} to {@code to} through Run Pipeline steps, both included, if there is a way. */
    private static Optional<List<String>> pathTo(String from, String to, PipelineStore store) {
        var cameFrom = new HashMap<String, String>();
        cameFrom.put(from, from);
        var queue = new ArrayDeque<String>(List.of(from));
        while (!queue.isEmpty()) {
            String at = queue.poll();
            if (at.equals(to)) {
                return Optional.of(path(cameFrom, from, to));
            }
            store.find(at)
                    .ifPresent(pipeline -> pipeline.definition().path("steps").forEach(step -> {
                        String next = step.path("params").path("pipeline_id").asText("");
                        if (step.path("action").asText().equals(RUN_PIPELINE) && !cameFrom.containsKey(next)) {
                            cameFrom.put(next, at);
                            queue.add(next);
                        }
                    }));
        }
        return Optional.empty();
    }

    private static List<String> path(Map<String, String> cameFrom, String from, String to) {
        var path = new ArrayList<String>();
        for (String at = to; !at.equals(from); at = Objects.requireNonNull(cameFrom.get(at), at)) {
            path.addFirst(at);
        }
        path.addFirst(from);
        return path;
    }
}
