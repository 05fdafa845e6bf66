package dev.arbor.studio.templates;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.TemplateDefinition;
import dev.arbor.studio.definitions.Variable;
import dev.arbor.studio.templates.versions.TemplateVersion;

/** The JSON Schema (2020-12) of a template version's variables, for callers and their code generators. */
final class VariableSchema {
    private static final String MEDIA_REFERENCE = "^(file_[0-9A-HJKMNP-TV-Z]{26}|data:%s/)";

    private VariableSchema() {}

    static ObjectNode of(String templateId, TemplateVersion version) {
        TemplateDefinition definition = version.definition();
        ObjectNode schema = Json.object();
        schema.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        schema.put("title", templateId + "@" + version.version() + " variables");
        schema.put("type", "object");
        schema.put("additionalProperties", false);
        ArrayNode required = schema.putArray("required");
        ObjectNode properties = schema.putObject("properties");
        definition.variables().forEach((name, variable) -> {
            if (variable.required()) {
                required.add(name);
            }
            properties.set(name, property(variable));
        });
        if (!definition.declaresVariables()) {
            schema.put(
                    "description",
                    "This template declares no variables: send the situation as `state` with " + "each decision.");
        }
        schema.put("x-studio-template", templateId + "@" + version.version());
        ArrayNode questions = schema.putArray("x-studio-questions");
        definition.questions().keySet().forEach(questions::add);
        schema.set("x-studio-extensions", version.definitionJson().get("extensions"));
        return schema;
    }

    private static ObjectNode property(Variable variable) {
        ObjectNode spec = variable.spec();
        String type = variable.typeName();
        ObjectNode property = Json.object();
        switch (type) {
            case "string" -> {
                property.put("type", "string");
                copy(spec, property, "min_length", "minLength");
                property.put("maxLength", variable.maxLength());
                copy(spec, property, "pattern", "pattern");
                copy(spec, property, "enum", "enum");
                copy(spec, property, "format", "format");
            }
            case "integer", "number" -> {
                property.put("type", type);
                copy(spec, property, "minimum", "minimum");
                copy(spec, property, "maximum", "maximum");
                copy(spec, property, "enum", "enum");
            }
            case "boolean" -> property.put("type", "boolean");
            case "json" -> {
                if (spec.has("schema")) {
                    property.setAll((ObjectNode) spec.get("schema").deepCopy());
                }
            }
            case "options" -> {
                ArrayNode oneOf = property.putArray("oneOf");
                oneOf.addObject()
                        .put("type", "object")
                        .putObject("additionalProperties")
                        .putArray("type")
                        .add("string")
                        .add("null");
                ObjectNode list = oneOf.addObject().put("type", "array").put("uniqueItems", true);
                list.putObject("items")
                        .put("type", "string")
                        .put("minLength", 1)
                        .put("maxLength", 200);
                property.put("x-studio-type", "options");
            }
            default -> {
                property.put("type", "string");
                property.put("pattern", MEDIA_REFERENCE.formatted(type));
                property.put("x-studio-type", type);
            }
        }
        copy(spec, property, "description", "description");
        copy(spec, property, "default", "default");
        if (spec.has("example")) {
            property.putArray("examples").add(spec.get("example"));
        }
        if (variable.sensitive()) {
            property.put("x-studio-sensitive", true);
        }
        return property;
    }

    private static void copy(JsonNode from, ObjectNode to, String key, String as) {
        if (from.has(key)) {
            to.set(as, from.get(key));
        }
    }
}
