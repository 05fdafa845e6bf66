package dev.arbor.pipelines;

import static dev.arbor.platform.http.bodies.BodyField.Presence.OPTIONAL;
import static dev.arbor.platform.http.bodies.BodyField.Presence.REQUIRED;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.platform.actions.ActionCatalog;
import dev.arbor.platform.errors.Problems;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodyReader;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.platform.json.Json;
import java.util.List;
import java.util.Optional;

/**
 * The body that creates, replaces or checks a pipeline: its definition. The top-level fields are declared here (for
 * the document, and so that a field the definition does not have is refused); what they hold goes whole to the
 * definition's own parser, {@link PipelineDefinition#read}, which checks each value and then the graph.
 */
final class PipelineBody {
    private PipelineBody() {}

    private static final BodyField.Value NAME = BodyField.value(REQUIRED, "name", Schema.string(200));
    private static final BodyField.Value DESCRIPTION = BodyField.value(OPTIONAL, "description", Schema.string(2_000));
    private static final BodyField.Value PARAMETERS = BodyField.value(OPTIONAL, "parameters", ApiShapes.PARAMETERS);
    private static final BodyField.Worded<JsonNode> STEPS = BodyField.value(REQUIRED, "steps", ApiShapes.STEPS)
            .refusedAs("must be an array of steps")
            .missingAs("is required: the steps of the pipeline");
    private static final BodyField.Value OUTPUTS = BodyField.value(OPTIONAL, "outputs", ApiShapes.OUTPUTS);
    private static final BodyField.Value TIMEOUT_SECONDS =
            BodyField.value(OPTIONAL, "timeout_seconds", ApiShapes.TIMEOUT_SECONDS);
    private static final BodyField.Value MAX_CONCURRENT_RUNS =
            BodyField.value(OPTIONAL, "max_concurrent_runs", ApiShapes.MAX_CONCURRENT_RUNS);
    private static final BodyField.Value PRIORITY = BodyField.value(OPTIONAL, "priority", ApiShapes.PRIORITY);
    private static final List<BodyField<JsonNode>> FIELDS =
            List.of(NAME, DESCRIPTION, PARAMETERS, STEPS, OUTPUTS, TIMEOUT_SECONDS, MAX_CONCURRENT_RUNS, PRIORITY);

    static final BodySpec SPEC = BodySpec.closed(
            "a pipeline",
            NAME,
            DESCRIPTION,
            PARAMETERS,
            STEPS,
            OUTPUTS,
            TIMEOUT_SECONDS,
            MAX_CONCURRENT_RUNS,
            PRIORITY);

    /** A body read: the definition when it has no problem, every problem found, and how many steps it lists. */
    record Read(Optional<PipelineDefinition> definition, Problems problems, int stepCount) {}

    /**
     * Reads {@code body}: the reader's problems (fields the definition lacks, fields missing) and the parser's, each
     * once (both see a missing name or steps).
     */
    static Read read(ObjectNode body, ActionCatalog catalog) {
        BodyReader reader = SPEC.reader(body);
        ObjectNode given = Json.object();
        for (BodyField<JsonNode> field : FIELDS) {
            field.read(reader).ifPresent(value -> given.set(field.name(), value));
        }
        var parsed = new Problems().addAll(reader.problems().list());
        Optional<PipelineDefinition> definition = PipelineDefinition.read(given, catalog, parsed);
        var problems = new Problems().addAll(parsed.list().stream().distinct().toList());
        return new Read(
                problems.isEmpty() ? definition : Optional.empty(),
                problems,
                given.path("steps").size());
    }

    /** The definition of {@code body}, or 400 with every problem of it. */
    static PipelineDefinition checked(ObjectNode body, ActionCatalog catalog) {
        Read read = read(body, catalog);
        read.problems().throwIfAny();
        return read.definition().orElseThrow();
    }
}
