package dev.arbor.studio.work;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.Optional;

/** What the API shows of every kind of the studio's background work (evals, fits) besides its own fields. */
public final class WorkShapes {
    private WorkShapes() {}

    /**
     * The work's error (null while it has none) and its times in Unix seconds: when it was created, started and
     * completed (null until then).
     */
    public static void putEnding(
            ObjectNode json,
            Optional<ObjectNode> error,
            long createdAtMillis,
            Optional<Long> startedAtMillis,
            Optional<Long> completedAtMillis) {
        json.set("error", orNull(error));
        json.put("created_at", createdAtMillis / 1000);
        json.put("started_at", startedAtMillis.map(t -> t / 1000).orElse(null));
        json.put("completed_at", completedAtMillis.map(t -> t / 1000).orElse(null));
    }

    /** An object the work may have yet to write, null until then. */
    public static JsonNode orNull(Optional<ObjectNode> object) {
        return object.map(JsonNode.class::cast).orElse(Json.mapper().nullNode());
    }
}
