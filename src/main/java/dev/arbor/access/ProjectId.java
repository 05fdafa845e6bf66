package dev.arbor.access;

import static java.util.Objects.requireNonNull;

/** A project's id ({@code prj_...}), as {@link CurrentProject} gives it: checked to exist and to be the caller's. */
public record ProjectId(String value) {
    public ProjectId {
        requireNonNull(value, "value");
    }
}
