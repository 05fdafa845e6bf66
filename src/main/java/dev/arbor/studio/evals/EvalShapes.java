package dev.arbor.studio.evals;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.anyOf;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.Waiting;
import dev.arbor.studio.history.HistoryShapes;

/** The shapes of evals, for the OpenAPI document. */
final class EvalShapes {
    private EvalShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);
    private static final Schema VERSION = anyOf(integer(1, Integer.MAX_VALUE), string(64));
    private static final Schema TARGET_IN =
            object().optional("model", nullable(string(200))).optional("version", nullable(VERSION));
    private static final Schema INLINE_ITEM = object().optional("variables", mapOf(any()))
            .optional("state", any("The situation, when there is no template or it takes no variables"))
            .optional("media", arrayOf(any()))
            .required("expected", mapOf(any("The right answer, as a label")))
            .optional("split", oneOf("test", "calibration"));

    static final Schema EVAL_IN = named(
            "EvalRequest",
            object().optional("template", string(300))
                    .optional("definition", object().required("questions", mapOf(any())))
                    .optional("models", arrayOf(string(200), EvalRequest.MAX_TARGETS))
                    .optional("versions", arrayOf(VERSION, EvalRequest.MAX_TARGETS))
                    .optional("targets", arrayOf(TARGET_IN, EvalRequest.MAX_TARGETS))
                    .optional(
                            "examples",
                            object().optional("tags", arrayOf(string(64)))
                                    .optional("split", oneOf("test", "calibration"))
                                    .optional("ids", arrayOf(string(64))))
                    .optional(
                            "history",
                            object().optional("filter", mapOf(any("A history filter, as in the query string")))
                                    .optional("limit", integer(1, EvalRequest.MAX_HISTORY))
                                    .optional("labels", oneOf("feedback")))
                    .optional("inline", object().required("items", arrayOf(INLINE_ITEM, EvalRequest.MAX_INLINE)))
                    .optional("questions", arrayOf(string(64)))
                    .optional("error_budget", number())
                    .optional("store", oneOf("full", "answers_only", "none")));

    static final Schema EVAL = named(
            "Eval",
            resource("eval")
                    .required("status", oneOf("queued", "in_progress", "completed", "failed", "cancelled"))
                    .required(
                            "progress",
                            object().required("done", COUNT)
                                    .required("total", COUNT)
                                    .required("failed", COUNT))
                    .required(
                            "template",
                            nullable(object().required("id", string()).required("reference", string())))
                    .required(
                            "targets",
                            arrayOf(object().required("index", COUNT)
                                    .required("model", nullable(string()))
                                    .required("version", nullable(integer()))))
                    .required("data_set", object().required("kind", oneOf("examples", "history", "inline")))
                    .required("items", COUNT)
                    .required("questions", arrayOf(string()))
                    .required("error_budget", number())
                    .required("store", oneOf("full", "answers_only", "none"))
                    .required("warnings", arrayOf(HistoryShapes.WARNING))
                    .required(
                            "results",
                            nullable(object().required("targets", arrayOf(any("A target's metrics per question")))
                                    .required("comparisons", arrayOf(any("One version against the one before")))))
                    .required("error", nullable(any("Why it failed")))
                    .required("created_at", timestamp())
                    .required("started_at", nullable(timestamp()))
                    .required("completed_at", nullable(timestamp())));

    static final Schema EVALS = Schema.list(EVAL);

    static final Schema ITEM = object().required("id", string())
            .required("object", oneOf("eval.item"))
            .required("target", COUNT)
            .required("position", COUNT)
            .required("source", string())
            .required("split", nullable(oneOf("test", "calibration")))
            .required("decision_id", nullable(string()))
            .required("expected", mapOf(any()))
            .required("answers", nullable(any("Per question: the answer, its label and whether it was right")))
            .required("error", nullable(any("Why the item's decision failed")));

    static final Schema ITEMS = Schema.list(ITEM);

    static final Schema APPLIED = object().required("object", oneOf("eval.applied"))
            .required("eval", string())
            .required("template", string())
            .required("version", integer(1, Integer.MAX_VALUE))
            .required("created", bool())
            .required("model", string())
            .required("settings", mapOf(mapOf(number())))
            .required("labels", mapOf(COUNT));

    static final Schema DELETED = Schema.deleted("eval");

    static final Waiting WAIT = Waiting.on("the eval");
    static final QueryParam ITEMS_AFTER =
            new QueryParam("after", string(), "The page after this item id (target.position, as listed).");
}
