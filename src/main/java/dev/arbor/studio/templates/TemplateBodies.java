package dev.arbor.studio.templates;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.models.Model;
import dev.arbor.models.Models;
import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.errors.WarningCode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.templates.versions.TemplateVersion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The template bodies the routes take, made into a {@link TemplateInput}: a definition (warned when its default
 * model could not run it), a clone of another template's version ({@code from}), or a merge patch of the latest
 * version; and which models can run a version.
 */
final class TemplateBodies {
    private static final Set<String> READ_ONLY = Set.of(
            "id", "object", "origin", "version", "content_hash", "aliases", "created_at", "updated_at", "archived");

    /** A template to create, and what made it ({@code api}, or {@code clone} for a copy of another's version). */
    record Creation(TemplateInput input, String source) {}

    private final TemplateService templates;
    private final Models models;

    TemplateBodies(TemplateService templates, Models models) {
        this.templates = requireNonNull(templates, "templates");
        this.models = requireNonNull(models, "models");
    }

    /** A template body, checked; warns when the default model it names could not run it. */
    TemplateInput input(ObjectNode body) {
        Set<String> known = new HashSet<>();
        models.list().forEach(model -> known.add(model.id()));
        TemplateInput input = TemplateInput.parse(body, known);
        var warnings = new ArrayList<>(TemplateNeeds.undescribed(input.definition()));
        Optional<String> model = input.definition().model();
        if (model.isEmpty()) {
            return input.withMoreWarnings(warnings);
        }
        models.find(model.get())
                .ifPresent(found -> found.facts()
                        .problems(TemplateNeeds.of(input.definition()))
                        .forEach(problem -> warnings.add(new Warning(
                                WarningCode.DEFAULT_MODEL_INCOMPATIBLE,
                                "The default model " + found.id() + " cannot run this template: " + problem.message(),
                                "model"))));
        return input.withMoreWarnings(warnings);
    }

    /**
     * A new template's body: a definition, or with {@code from} a copy of the version it names, where the body's
     * own fields replace the copy's (and the note says where it came from unless the body gives one).
     */
    Creation creation(ObjectNode body) {
        if (!body.has("from")) {
            return new Creation(input(body), "api");
        }
        JsonNode from = body.get("from");
        JsonNode reference = from.path("template");
        if (!from.isObject() || !reference.isTextual() || reference.textValue().isBlank()) {
            throw ApiException.of(
                    ErrorCode.INVALID_FIELD,
                    "from.template",
                    "`from` must be {\"template\": "
                            + "\"<id>[@<version or alias>]\"}, naming the template version to copy.");
        }
        TemplateService.Loaded source;
        try {
            source = templates.reference(reference.textValue());
        } catch (ApiException e) {
            throw ApiException.of(
                    e.code(), "from.template", e.problems().getFirst().message());
        }
        ObjectNode clone = body.deepCopy();
        clone.remove("from");
        for (String field : TemplateInput.DEFINITION_FIELDS) {
            if (!clone.has(field)) {
                clone.set(field, source.version().definitionJson().get(field));
            }
        }
        if (!clone.has("note")) {
            clone.put(
                    "note",
                    "Cloned from " + source.head().id() + "@" + source.version().version());
        }
        return new Creation(input(clone), "clone");
    }

    /**
     * The template {@code id} with {@code patch} merged into its editable fields and latest definition; refuses the
     * fields a patch cannot change.
     */
    TemplateInput patched(String id, ObjectNode patch, String base) {
        var problems = new Problems();
        for (var names = patch.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (READ_ONLY.contains(name)) {
                problems.add(
                        ErrorCode.READ_ONLY_FIELD,
                        name,
                        name.equals("archived")
                                ? "`archived` changes through POST " + base + "/" + id + "/archive and /unarchive."
                                : name.equals("version")
                                        ? "A version number cannot be changed; a changed definition "
                                                + "makes the next version."
                                        : "`" + name + "` cannot be changed.");
            }
        }
        problems.throwIfAny();
        var current = templates.load(id, Optional.empty());
        TemplateService.requireWritable(current.head());
        ObjectNode editable = Json.object();
        editable.put("name", current.head().name());
        editable.put("description", current.head().description());
        editable.set("metadata", current.head().metadata());
        editable.put("storage", current.head().storage());
        current.head()
                .retentionDays()
                .ifPresentOrElse(
                        days -> editable.put("retention_days", days), () -> editable.putNull("retention_days"));
        current.version()
                .definitionJson()
                .properties()
                .forEach(e -> editable.set(e.getKey(), e.getValue().deepCopy()));
        JsonNode merged = Json.mergePatch(editable, patch);
        return input((ObjectNode) merged);
    }

    /** Which models can run {@code version}, each with what stops it or what to know. */
    List<TemplateView.Compatibility> compatibility(TemplateVersion version) {
        var list = new ArrayList<TemplateView.Compatibility>();
        for (Model model : models.list()) {
            var problems = model.facts().problems(TemplateNeeds.of(version.definition()));
            list.add(new TemplateView.Compatibility(
                    model.id(),
                    model.name(),
                    model.status(),
                    problems.isEmpty(),
                    problems,
                    TemplateNeeds.notes(version.definition(), model.facts())));
        }
        return list;
    }
}
