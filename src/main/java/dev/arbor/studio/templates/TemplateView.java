package dev.arbor.studio.templates;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.ModelFacts;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.templates.versions.TemplateHead;
import dev.arbor.studio.templates.versions.TemplateVersion;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A template as the API shows it: its head, one version, and either the version's definition (its fields at the top
 * level) or a summary of it; a write adds what it changed and its warnings, a read may add which models can run it.
 */
@JsonPropertyOrder({
    "id",
    "object",
    "name",
    "description",
    "origin",
    "archived",
    "metadata",
    "storage",
    "retention_days",
    "aliases",
    "version",
    "note",
    "content_hash",
    "summary",
    "created_at",
    "updated_at",
    "change",
    "warnings",
    "compatibility"
})
record TemplateView(
        String id,
        String name,
        String description,
        String origin,
        boolean archived,
        ObjectNode metadata,
        String storage,
        @JsonProperty("retention_days") @Nullable Integer retentionDays,
        Map<String, Integer> aliases,
        int version,
        String note,
        @JsonProperty("content_hash") String contentHash,
        @JsonIgnore Optional<ObjectNode> definition,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable Summary summary,
        @JsonProperty("created_at") long createdAt,
        @JsonProperty("updated_at") long updatedAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable String change,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<Warning> warnings,
        @JsonInclude(JsonInclude.Include.NON_NULL) @Nullable List<Compatibility> compatibility) {

    /** What a list shows of a version it does not show whole. */
    record Summary(
            List<String> questions,
            List<String> variables,
            @Nullable String model,
            List<String> modalities) {
        static Summary of(TemplateDefinition definition) {
            return new Summary(
                    List.copyOf(definition.questions().keySet()),
                    List.copyOf(definition.variables().keySet()),
                    definition.model().orElse(null),
                    List.copyOf(definition.modalities()));
        }
    }

    /** Whether one model can run a version, what stops it if not, and what to know if so. */
    record Compatibility(
            String model,
            String name,
            String status,
            boolean ok,
            List<ModelFacts.Problem> problems,
            List<String> notes) {}

    /** {@code version} of the template {@code head} names, whole or summed up. */
    static TemplateView of(
            TemplateHead head, TemplateVersion version, Map<String, Integer> aliases, boolean withDefinition) {
        return new TemplateView(
                head.id(),
                head.name(),
                head.description(),
                head.origin(),
                head.archived(),
                head.metadata(),
                head.storage(),
                head.retentionDays().orElse(null),
                aliases,
                version.version(),
                version.note(),
                version.contentHash(),
                withDefinition ? Optional.of(version.definitionJson()) : Optional.empty(),
                withDefinition ? null : Summary.of(version.definition()),
                head.createdAtMillis() / 1000,
                head.updatedAtMillis() / 1000,
                null,
                null,
                null);
    }

    /** What a write answers: the template as written, what changed, and the write's warnings. */
    static TemplateView of(TemplateService.Saved saved) {
        TemplateView view = of(saved.head(), saved.version(), saved.aliases(), true);
        return new TemplateView(
                view.id,
                view.name,
                view.description,
                view.origin,
                view.archived,
                view.metadata,
                view.storage,
                view.retentionDays,
                view.aliases,
                view.version,
                view.note,
                view.contentHash,
                view.definition,
                view.summary,
                view.createdAt,
                view.updatedAt,
                saved.change(),
                saved.warnings(),
                null);
    }

    /** This view with which models can run its version. */
    TemplateView withCompatibility(List<Compatibility> models) {
        return new TemplateView(
                id,
                name,
                description,
                origin,
                archived,
                metadata,
                storage,
                retentionDays,
                aliases,
                version,
                note,
                contentHash,
                definition,
                summary,
                createdAt,
                updatedAt,
                change,
                warnings,
                List.copyOf(models));
    }

    @JsonProperty("object")
    String object() {
        return "template";
    }

    /** The definition's fields, each at the top level, when the view shows the version whole. */
    @JsonAnyGetter
    Map<String, JsonNode> definitionFields() {
        var fields = new LinkedHashMap<String, JsonNode>();
        definition.ifPresent(json -> json.properties().forEach(e -> fields.put(e.getKey(), e.getValue())));
        return fields;
    }

    /**
     * The ETag: the latest version, which {@code If-Match} names back, and a digest of this answer (aliases, the
     * name and the retention change without a new version, and a GET revalidated after such a change must not be
     * answered 304). The digest is that of the answer's JSON tree, which does not depend on the fields' order.
     */
    String etag(int latestVersion) {
        return "\"" + latestVersion + "."
                + Integer.toHexString(Json.mapper().valueToTree(this).hashCode()) + "\"";
    }
}
