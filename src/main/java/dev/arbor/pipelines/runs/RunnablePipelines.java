package dev.arbor.pipelines.runs;

import com.fasterxml.jackson.databind.node.ObjectNode;

/** Where runs find the pipelines they start by id: the pipelines' store, which sits above them. */
public interface RunnablePipelines {
    /** The pipeline as it is now, or 404 {@code pipeline_not_found}. */
    Pipeline require(String pipelineId);

    /** A pipeline at a version: what a run keeps of it (a run's definition does not change when its pipeline does). */
    interface Pipeline {
        String id();

        int version();

        ObjectNode definition();

        /** Whether it is paused: no new run of it starts (a manual one is refused, a firing skipped). */
        boolean paused();
    }
}
