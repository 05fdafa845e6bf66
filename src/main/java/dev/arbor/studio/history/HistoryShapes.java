package dev.arbor.studio.history;

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
import dev.arbor.studio.questions.QuestionShapes;
import java.util.List;

/** The shapes of stored decisions, of the history list and export, and of history edits, for the OpenAPI document. */
public final class HistoryShapes {
    private HistoryShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);
    private static final Schema PROBABILITY = number();

    public static final Schema STORE_LEVEL = oneOf("full", "answers_only", "none");
    private static final Schema SURFACE = oneOf("api", "wire", "rerun");
    public static final Schema WARNING =
            object().required("code", string()).required("message", string()).required("param", nullable(string()));

    /** The settings a decision ran with, and which layer each came from. */
    public static final Schema EFFECTIVE_SETTINGS = object().required("act_threshold", number())
            .required("temperature", number())
            .required("questions", mapOf(QuestionShapes.QUESTION_SETTINGS))
            .required("sources", mapOf(string()));

    public static final Schema TEMPLATE_REF = object().required("id", string())
            .required("version", integer(1, Long.MAX_VALUE))
            .required("ref", string())
            .required("resolved_from", oneOf("latest", "pinned", "alias"))
            .required("attribution", oneOf("explicit", "header"));
    public static final Schema EXTENSIONS = object().required("questions", arrayOf(string()))
            .required("options", mapOf(arrayOf(string())))
            .required("skipped", arrayOf(string()));
    public static final Schema MEDIA_KEPT = object().required("type", oneOf("image", "audio", "video"))
            .required("file_id", nullable(string()))
            .required("name", nullable(string()))
            .required("content_type", string())
            .required("bytes", COUNT)
            .required("sha256", string())
            .optional("variable", nullable(string()))
            .optional("available", bool());
    private static final Schema.Obj INPUT_FIELDS = object().required(
                    "variables", any("The variables as sent after defaults (sensitive ones as a hash), or null"))
            .required("state", any("The situation the model read"))
            .required("media", arrayOf(MEDIA_KEPT))
            .required("questions", mapOf(QuestionShapes.QUESTION))
            .optional("rendered_state", string())
            .optional("redacted", arrayOf(string()));
    private static final Schema ERROR =
            object().required("type", string()).required("code", string()).required("message", string());
    public static final Schema DECISION = named(
            "Decision",
            resource("decision")
                    .required("status", oneOf(DecisionStatus.wires().toArray(String[]::new)))
                    .required("created_at", timestamp())
                    .required("completed_at", nullable(timestamp()))
                    .required("template", nullable(TEMPLATE_REF))
                    .required("model", nullable(string()))
                    .required("model_requested", nullable(string()))
                    .optional("input", nullable(INPUT_FIELDS))
                    .required("extensions", EXTENSIONS)
                    .required("answers", nullable(mapOf(QuestionShapes.ANSWER)))
                    .required("act", nullable(bool()))
                    .required("needs_review", arrayOf(string()))
                    .required("settings", EFFECTIVE_SETTINGS)
                    .required("usage", object().required("input_tokens", COUNT).required("output_tokens", COUNT))
                    .required(
                            "timing",
                            object().required("queue_ms", number())
                                    .required("load_ms", number())
                                    .required("model_ms", number())
                                    .required("total_ms", number()))
                    .required("warnings", arrayOf(WARNING))
                    .required(
                            "source",
                            object().required("surface", SURFACE)
                                    .required("endpoint", string())
                                    .required("request_id", string()))
                    .required("rerun_of", nullable(string()))
                    .required("store", STORE_LEVEL)
                    .required("error", nullable(ERROR))
                    .required("metadata", mapOf(string()))
                    .required("pinned", bool())
                    .optional(
                            "feedback",
                            mapOf(object().required("expected", any())
                                    .required("correct", nullable(bool()))
                                    .required("feedback_id", string())))
                    .optional("expires_at", nullable(timestamp())));
    public static final Schema SUMMARY = named(
            "DecisionSummary",
            resource("decision.summary")
                    .required("status", oneOf(DecisionStatus.wires().toArray(String[]::new)))
                    .required("created_at", timestamp())
                    .required(
                            "template",
                            nullable(object().required("id", string()).required("version", integer())))
                    .required("model", nullable(string()))
                    .required("source", object().required("surface", SURFACE))
                    .required("extended", bool())
                    .required("act", nullable(bool()))
                    .required("needs_review", arrayOf(string()))
                    .required(
                            "answers",
                            mapOf(object().required("type", string())
                                    .required("decision", anyOf(string(), arrayOf(string())))
                                    .required("certainty", PROBABILITY)
                                    .required("act", bool())))
                    .required("timing", object().required("total_ms", number()))
                    .required("metadata", mapOf(string()))
                    .required("pinned", bool())
                    .required("labelled", bool())
                    .required("error", nullable(object().required("code", string()))));
    /** A list item: the summary, or with {@code view=full} the whole decision. */
    public static final Schema LISTED = named("DecisionListItem", anyOf(SUMMARY, DECISION));

    public static final Schema INPUT = named(
            "DecisionInput",
            INPUT_FIELDS.required("object", oneOf("decision.input")).required("decision_id", string()));
    public static final Schema DECISION_PATCH =
            object().optional("metadata", nullable(mapOf(nullable(string())))).optional("pinned", bool());
    public static final Schema DELETED = Schema.deleted("decision");

    public static final Schema JSON_LINES = any("One JSON object a line");

    public static final QueryParam VIEW = new QueryParam(
            "view", oneOf("summary", "full"), "summary (default) lists what was decided; full lists whole decisions.");
    public static final QueryParam EXPORT_FORMAT =
            new QueryParam("format", oneOf("jsonl", "csv"), "jsonl (default) or csv.");

    /** The list's filters: a comma means any of; every filter sent must hold. */
    public static final List<QueryParam> FILTERS = List.of(
            new QueryParam("template", string(), "Template ids, id@version or id@alias, or none (ad hoc)."),
            new QueryParam("version", string(), "Template version numbers."),
            new QueryParam("model", string(), "Model ids."),
            new QueryParam("status", string(), String.join(", ", DecisionStatus.wires()) + "."),
            new QueryParam(
                    "surface",
                    string(),
                    "Where decisions came from: api, wire, rerun, router, eval; all for every one (eval is left out "
                            + "unless named)."),
            new QueryParam("endpoint", string(), "The paths decisions were made on."),
            new QueryParam("request_id", string(), "The request ids that made them."),
            new QueryParam("rerun_of", string(), "The decisions they rerun."),
            new QueryParam("act", bool(), "Whether every answer acted."),
            new QueryParam("pinned", bool(), "Whether pinned."),
            new QueryParam("labelled", bool(), "Whether they have feedback."),
            new QueryParam("correct", bool(), "Whether every labelled answer was right."),
            new QueryParam("needs_review", string(), "Question keys whose answer did not act."),
            new QueryParam("created_after", string(), "Unix seconds, an RFC 3339 time or relative, such as -7d."),
            new QueryParam("created_before", string(), "Unix seconds, an RFC 3339 time or relative, such as -7d."),
            new QueryParam("q", string(), "Words the situation, variables or metadata contain."),
            new QueryParam(
                    "filters",
                    mapOf(string()),
                    "More filters by name: metadata.<key>=<value>, "
                            + "answer.<question>=<answers>, certainty_below.<question>=<n>, certainty_above.<question>=<n>."));
}
