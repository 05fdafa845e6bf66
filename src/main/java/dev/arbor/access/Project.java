package dev.arbor.access;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.Map;

/** A project: the unit that members, gateways, connections and routers belong to. */
record Project(String id, String name, String description, long createdAtMillis) {
    public Project {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(description, "description");
    }

    Map<String, Object> toJson() {
        var json = new LinkedHashMap<String, Object>();
        json.put("id", id);
        json.put("object", "project");
        json.put("name", name);
        json.put("description", description);
        json.put("created_at", createdAtMillis / 1000);
        return json;
    }
}
