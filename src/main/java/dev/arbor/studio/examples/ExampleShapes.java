package dev.arbor.studio.examples;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.bodies.BodyField;
import dev.arbor.platform.http.bodies.BodySpec;
import dev.arbor.studio.decisions.DecisionShapes;
import dev.arbor.studio.history.HistoryShapes;

/** The shapes of test examples, for the OpenAPI document. */
final class ExampleShapes {
    private ExampleShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);

    private static final Schema.Obj EXAMPLE_FIELDS = object().optional("variables", mapOf(any()))
            .optional("state", DecisionShapes.STATE)
            .optional("media", arrayOf(DecisionShapes.MEDIA_IN))
            .optional("expected", mapOf(any("The right answer, as a label")))
            .optional("tags", arrayOf(string(64)))
            .optional("split", oneOf("test", "calibration"))
            .optional("note", nullable(string(2000)));
    static final Schema EXAMPLE_IN = named("ExampleRequest", EXAMPLE_FIELDS.optional("from_decision", string()));
    static final Schema EXAMPLE_PATCH = object().optional("variables", mapOf(any()))
            .optional("state", DecisionShapes.STATE)
            .optional("media", nullable(arrayOf(DecisionShapes.MEDIA_IN)))
            .optional("expected", mapOf(any()))
            .optional("tags", nullable(arrayOf(string(64))))
            .optional("split", oneOf("test", "calibration"))
            .optional("note", nullable(string(2000)));
    static final Schema EXAMPLE = named(
            "Example",
            resource("template.example")
                    .required("template", string())
                    .required("revision", COUNT)
                    .required("variables", nullable(mapOf(any())))
                    .required("state", any("The situation, when the template takes no variables"))
                    .required("media", nullable(arrayOf(HistoryShapes.MEDIA_KEPT)))
                    .required("expected", mapOf(any()))
                    .required("tags", arrayOf(string()))
                    .required("split", oneOf("test", "calibration"))
                    .required("note", nullable(string()))
                    .required("from_decision", nullable(string()))
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
    static final Schema EXAMPLES = object().required("object", oneOf("list"))
            .required("data", arrayOf(EXAMPLE))
            .required("first_id", nullable(string()))
            .required("last_id", nullable(string()))
            .required("has_more", bool())
            .required("revision", COUNT);
    /** The examples to import; a list that is empty or too long is refused by the import, with its own words. */
    static final BodyField.Value IMPORT_ITEMS =
            new BodyField.Value("examples", BodyField.Presence.REQUIRED, arrayOf(EXAMPLE_IN, Examples.MAX_IMPORT));

    static final BodySpec IMPORT = BodySpec.of(IMPORT_ITEMS);
    static final Schema IMPORTED = object().required("object", oneOf("import_result"))
            .required("created", COUNT)
            .required("revision", COUNT)
            .required(
                    "failed",
                    arrayOf(object().required("index", COUNT)
                            .required(
                                    "error",
                                    object().required("code", string())
                                            .required("param", nullable(string()))
                                            .required("message", string()))));
    static final Schema EXAMPLE_DELETED = Schema.deleted("template.example");
    static final QueryParam REVISION =
            new QueryParam("revision", COUNT, "A past revision of the examples " + "(default: the current one).");
    static final QueryParam EXAMPLE_LIMIT =
            new QueryParam("limit", integer(1, 1000), "How many examples a page holds (default 100).");
    static final QueryParam SPLIT = new QueryParam("split", oneOf("test", "calibration"), "Only this split.");
    static final QueryParam LABELLED = new QueryParam("labelled", bool(), "Whether examples have expected answers.");
    static final QueryParam TAG = new QueryParam("tag", string(), "Only examples with this tag.");
    static final QueryParam SEARCH = new QueryParam("q", string(), "Text the example's input contains.");
}
