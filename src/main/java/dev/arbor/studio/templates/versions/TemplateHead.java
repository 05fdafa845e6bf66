package dev.arbor.studio.templates.versions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/** The unversioned part of a template: renaming or archiving never changes an answer. */
public record TemplateHead(
        String id,
        String name,
        String description,
        String origin,
        boolean archived,
        ObjectNode metadata,
        String storage,
        Optional<Integer> retentionDays,
        int latestVersion,
        long createdAtMillis,
        long updatedAtMillis,
        Optional<Long> deletedAtMillis) {
    public TemplateHead {
        requireNonNull(id, "id");
        requireNonNull(name, "name");
        requireNonNull(description, "description");
        requireNonNull(origin, "origin");
        requireNonNull(metadata, "metadata");
        requireNonNull(storage, "storage");
        requireNonNull(retentionDays, "retentionDays");
        requireNonNull(deletedAtMillis, "deletedAtMillis");
    }

    /** A starter template's head: shipped with the server, never archived, stored in full, kept for ever. */
    static TemplateHead builtin(
            String id,
            String name,
            String description,
            ObjectNode metadata,
            int latestVersion,
            long createdAt,
            long now) {
        return new TemplateHead(
                id,
                name,
                description,
                "builtin",
                false,
                metadata,
                "full",
                Optional.empty(),
                latestVersion,
                createdAt,
                now,
                Optional.empty());
    }

    public boolean builtin() {
        return origin.equals("builtin");
    }

    public TemplateHead withDeleted(long now) {
        return changed(archived, now, Optional.of(now));
    }

    public TemplateHead withArchived(boolean value, long now) {
        return changed(value, now, deletedAtMillis);
    }

    private TemplateHead changed(boolean archivedNow, long now, Optional<Long> deletedAt) {
        return new TemplateHead(
                id,
                name,
                description,
                origin,
                archivedNow,
                metadata,
                storage,
                retentionDays,
                latestVersion,
                createdAtMillis,
                now,
                deletedAt);
    }
}
