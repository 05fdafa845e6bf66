package dev.arbor.studio.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.ErrorCode;
import dev.arbor.platform.errors.Warning;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.studio.definitions.Metadata;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.TemplateDefinitionCodec;
import dev.arbor.studio.definitions.checks.DefinitionValidator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A template write as sent: head fields (each absent unless sent), the definition in normal form, and the version
 * note. Every problem of the body is reported at once.
 *
 * @param retentionDays absent when not sent; an empty inner value when sent as null (the studio default)
 */
record TemplateInput(
        Optional<String> id,
        Optional<String> name,
        Optional<String> description,
        Optional<ObjectNode> metadata,
        Optional<String> storage,
        Optional<Optional<Integer>> retentionDays,
        TemplateDefinition definition,
        Optional<String> note,
        Optional<Integer> baseVersion,
        List<Warning> warnings) {
    static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,63}");
    static final Set<String> STORAGE = Set.of("full", "answers_only", "none");
    static final List<String> DEFINITION_FIELDS =
            List.of("modalities", "variables", "state", "questions", "model", "settings", "extensions");

    static TemplateInput parse(ObjectNode body, Set<String> knownModels) {
        var reader = BodyReader.of(body);
        Optional<String> id = reader.string("id", false, 64);
        id.ifPresent(value -> {
            if (!ID.matcher(value).matches() || value.equals("builtin")) {
                reader.reject(
                        "id",
                        ErrorCode.INVALID_FIELD,
                        value.startsWith("builtin/")
                                ? "may not start with builtin/, which is kept for starter templates"
                                : value.equals("builtin")
                                        ? "is kept for starter templates"
                                        : "must be 1 to 64 characters of a-z, 0-9, _ and -, starting with a letter or digit");
            }
        });
        Optional<String> name = reader.string("name", false, 120);
        if (name.isPresent() && name.get().isBlank()) {
            reader.reject("name", ErrorCode.INVALID_FIELD, "must not be empty");
        }
        Optional<String> description = reader.string("description", false, 2000);
        Optional<ObjectNode> metadata =
                reader.node("metadata", false).flatMap(node -> Metadata.check(node, "metadata", reader.problems()));
        Optional<String> storage = reader.string("storage", false, 20);
        storage.ifPresent(value -> {
            if (!STORAGE.contains(value)) {
                reader.reject("storage", ErrorCode.INVALID_FIELD, "must be full, answers_only or none");
            }
        });
        Optional<Optional<Integer>> retention = Optional.empty();
        if (body.has("retention_days")) {
            retention = Optional.of(
                    reader.integer("retention_days", false, 0, 36_500).map(Long::intValue));
        }
        Optional<String> note = reader.string("note", false, 500);
        Optional<Integer> baseVersion =
                reader.integer("base_version", false, 1, Integer.MAX_VALUE).map(Long::intValue);
        JsonNode[] fields = new JsonNode[DEFINITION_FIELDS.size()];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = reader.node(DEFINITION_FIELDS.get(i), false).orElse(null);
        }
        var result = DefinitionValidator.validate(
                new DefinitionValidator.Fields(
                        fields[0], fields[1], fields[2], fields[3], fields[4], fields[5], fields[6]),
                reader.problems(),
                knownModels);
        var warnings = new ArrayList<>(reader.finish());
        warnings.addAll(result.warnings());
        return new TemplateInput(
                id,
                name.map(String::trim),
                description,
                metadata,
                storage,
                retention,
                TemplateDefinitionCodec.read(result.definition()),
                note,
                baseVersion,
                List.copyOf(warnings));
    }

    /** A new version's definition, with its note; the template's name, settings and the like as they are. */
    static TemplateInput definitionOnly(TemplateDefinition definition, String note) {
        return new TemplateInput(
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                definition,
                Optional.of(note),
                Optional.empty(),
                List.of());
    }

    TemplateInput withMoreWarnings(List<Warning> more) {
        var all = new ArrayList<>(warnings);
        all.addAll(more);
        return new TemplateInput(
                id,
                name,
                description,
                metadata,
                storage,
                retentionDays,
                definition,
                note,
                baseVersion,
                List.copyOf(all));
    }
}
