package dev.arbor.studio.templates.versions;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.platform.secrets.Digests;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateDefinitionCodec;
import java.util.Optional;
import java.util.TreeMap;

/** One immutable version of a template's definition. */
public record TemplateVersion(
        String templateId,
        int version,
        String note,
        String contentHash,
        String questionsHash,
        String questionSetKey,
        String source,
        Optional<Integer> baseVersion,
        TemplateDefinition definition,
        ObjectNode changes,
        long createdAtMillis,
        String createdBy) {
    public TemplateVersion {
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

    /** A new version of {@code definition} (in normal form), with its hashes. */
    public static TemplateVersion create(
            String templateId,
            int version,
            String note,
            TemplateDefinition definition,
            String source,
            Optional<Integer> baseVersion,
            ObjectNode changes,
            long now,
            String createdBy) {
        ObjectNode json = TemplateDefinitionCodec.write(definition);
        JsonNode questions = json.get("questions");
        var sorted = new TreeMap<String, JsonNode>();
        questions.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return new TemplateVersion(
                templateId,
                version,
                note,
                hash(json),
                hash(questions),
                hash(Json.mapper().valueToTree(sorted)),
                source,
                baseVersion,
                definition,
                changes,
                now,
                createdBy);
    }

    /** The definition's normal form, as stored and as the API shows it. */
    public ObjectNode definitionJson() {
        return TemplateDefinitionCodec.write(definition);
    }

    /** The content hash of a definition: the hash of its normal form. */
    public static String hash(TemplateDefinition definition) {
        return hash(TemplateDefinitionCodec.write(definition));
    }

    /** {@code sha256:<hex>} of a value's JSON text: for a definition in normal form, its identity. */
    public static String hash(JsonNode node) {
        return "sha256:" + Digests.sha256Hex(Json.writeString(node));
    }
}
