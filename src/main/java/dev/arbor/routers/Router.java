package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.List;

/** A stored router: its fields and its graph as last saved. */
record Router(
        String id,
        String projectId,
        String name,
        String description,
        List<String> tags,
        String icon,
        RouterStatus status,
        ObjectNode dagConfig,
        Instant createdAt,
        Instant modifiedAt) {
    Router {
        requireNonNull(id, "id");
        requireNonNull(projectId, "projectId");
        requireNonNull(name, "name");
        requireNonNull(description, "description");
        tags = List.copyOf(tags);
        requireNonNull(icon, "icon");
        requireNonNull(status, "status");
        dagConfig = requireNonNull(dagConfig, "dagConfig").deepCopy();
        requireNonNull(createdAt, "createdAt");
        requireNonNull(modifiedAt, "modifiedAt");
    }

    @Override
    public ObjectNode dagConfig() {
        return dagConfig.deepCopy();
    }

    int stepCount() {
        return dagConfig.path("steps").size();
    }
}
