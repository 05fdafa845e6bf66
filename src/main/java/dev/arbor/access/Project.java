package dev.arbor.access;

import static java.util.Objects.requireNonNull;

/** A project: the unit that members, gateways, connections and routers belong to. */
record Project(String id, String name, String description, long createdAtMillis) {
    public Project {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(description, "description");
    }
}
