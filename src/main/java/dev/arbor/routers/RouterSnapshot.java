package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;

/** An active router as last saved: its checked graph, and when it was saved (a cache's key). */
public record RouterSnapshot(String id, String projectId, String name, Instant modifiedAt, JsonNode dagConfig) {
    public RouterSnapshot {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(name, "name");
        requireNonNull(modifiedAt, "modifiedAt");
        dagConfig = requireNonNull(dagConfig, "dagConfig").deepCopy();
    }

    /** A copy: the snapshot stays as it was saved, whatever a reader does with its graph. */
    @Override
    public JsonNode dagConfig() {
        return dagConfig.deepCopy();
    }
}
