package dev.arbor.studio.templates;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.studio.templates.versions.TemplateVersion;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * One version of a template as the API shows it: its hashes, where it came from, the aliases that name it, what
 * changed from the version before, and, when asked for, its definition (its fields at the top level).
 */
@JsonPropertyOrder({
    "object",
    "template",
    "version",
    "note",
    "content_hash",
    "questions_hash",
    "question_set_key",
    "source",
    "base_version",
    "aliases",
    "changes",
    "created_at",
    "created_by"
})
record VersionView(
        String template,
        int version,
        String note,
        @JsonProperty("content_hash") String contentHash,
        @JsonProperty("questions_hash") String questionsHash,
        @JsonProperty("question_set_key") String questionSetKey,
        String source,
        @JsonProperty("base_version") @Nullable Integer baseVersion,
        List<String> aliases,
        ObjectNode changes,
        @JsonIgnore Optional<ObjectNode> definition,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("created_by") String createdBy) {

    static VersionView of(TemplateVersion version, Map<String, Integer> aliases, boolean withDefinition) {
        return new VersionView(
                version.templateId(),
                version.version(),
                version.note(),
                version.contentHash(),
                version.questionsHash(),
                version.questionSetKey(),
                version.source(),
                version.baseVersion().orElse(null),
                aliases.entrySet().stream()
                        .filter(e -> e.getValue() == version.version())
                        .map(Map.Entry::getKey)
                        .toList(),
                version.changes(),
                withDefinition ? Optional.of(version.definitionJson()) : Optional.empty(),
                version.createdAtMillis() / 1000,
                version.createdBy());
    }

    @JsonProperty("object")
    String object() {
        return "template.version";
    }

    @JsonAnyGetter
    Map<String, JsonNode> definitionFields() {
        var fields = new LinkedHashMap<String, JsonNode>();
        definition.ifPresent(json -> json.properties().forEach(e -> fields.put(e.getKey(), e.getValue())));
        return fields;
    }

    /** A page of versions: the list shape, with version numbers as its cursors. */
    @JsonPropertyOrder({"object", "data", "first_id", "last_id", "has_more"})
    record Page(
            List<VersionView> data,
            @JsonProperty("first_id") @Nullable Integer firstId,
            @JsonProperty("last_id") @Nullable Integer lastId,
            @JsonProperty("has_more") boolean hasMore) {
        @JsonProperty("object")
        String object() {
            return "list";
        }
    }

    /** What changed between two versions: the kind of change, per question, and the definitions' differences. */
    @JsonPropertyOrder({
        "object",
        "template",
        "from",
        "to",
        "class",
        "breaking_for_callers",
        "questions",
        "summary",
        "changes"
    })
    record Diff(
            String template,
            int from,
            int to,
            @JsonProperty("class") @Nullable JsonNode kind,
            @JsonProperty("breaking_for_callers") @Nullable JsonNode breakingForCallers,
            @Nullable JsonNode questions,
            @Nullable JsonNode summary,
            JsonNode changes) {
        @JsonProperty("object")
        String object() {
            return "template.diff";
        }
    }

    /** An alias as set: the version it names now and the one it named before (null when it is new). */
    @JsonPropertyOrder({"object", "template", "alias", "version", "previous_version", "updated_at"})
    record Alias(
            String template,
            String alias,
            int version,
            @JsonProperty("previous_version") @Nullable Integer previousVersion,
            @JsonProperty("updated_at") long updatedAt) {
        @JsonProperty("object")
        String object() {
            return "template.alias";
        }
    }
}
