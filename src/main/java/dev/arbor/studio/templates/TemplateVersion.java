package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Optional;

/** One immutable version of a template's definition. */
record TemplateVersion(String templateId, int version, String note, String contentHash, String questionsHash,
                       String questionSetKey, String source, Optional<Integer> baseVersion, ObjectNode definition,
                       ObjectNode changes, long createdAtMillis, String createdBy) {
    TemplateVersion {
        requireNonNull(templateId, "templateId");
        requireNonNull(note, "note");
        requireNonNull(contentHash, "contentHash");
        requireNonNull(questionsHash, "questionsHash");
        requireNonNull(questionSetKey, "questionSetKey");
        requireNonNull(source, "source");
        requireNonNull(baseVersion, "baseVersion");
        requireNonNull(definition, "definition");
        requireNonNull(changes, "changes");
        requireNonNull(createdBy, "createdBy");
    }
}
