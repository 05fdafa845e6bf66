package dev.arbor.studio.definitions;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.checks.DefinitionValidator;
import java.util.Set;

/** Template definitions in normal form, for tests of the parts that take one. */
public final class TestDefinitions {
    static final Set<String> MODELS = Set.of("hash-decider");

    private TestDefinitions() {}

    public static DefinitionValidator.Result validate(String json, Problems problems) {
        JsonNode body = Json.read(json);
        return DefinitionValidator.validate(
                new DefinitionValidator.Fields(
                        body.get("modalities"),
                        body.get("variables"),
                        body.get("state"),
                        body.get("questions"),
                        body.get("model"),
                        body.get("settings"),
                        body.get("extensions")),
                problems,
                MODELS);
    }

    /** The normal form of a definition that must be valid. */
    static ObjectNode normalJson(String json) {
        var problems = new Problems();
        var result = validate(json, problems);
        assertThat(problems.list()).as("problems").isEmpty();
        return result.definition();
    }

    /** A definition that must be valid, as the studio reads it. */
    static TemplateDefinition normal(String json) {
        return TemplateDefinitionCodec.read(normalJson(json));
    }
}
