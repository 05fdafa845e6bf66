package dev.arbor.studio.decisions;

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
import dev.arbor.studio.templates.SettingRange;
import java.util.ArrayList;
import java.util.List;

/**
 * The shapes of decisions, their answers, examples, feedback, history edits, comparisons, settings and stats, for
 * the OpenAPI document. The rules of each field are the parsers' ({@link DecisionRequest}, {@link StudioSettings},
 * ...); this gives the fields and their types, and the OpenAPI test checks real requests and answers against it.
 */
final class ApiShapes {
    private ApiShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);
    private static final Schema PROBABILITY = number();
    private static final Schema STORE_LEVEL = oneOf("full", "answers_only", "none");
    private static final Schema SURFACE = oneOf("api", "wire", "rerun");
    static final Schema WARNING =
            object().required("code", string()).required("message", string()).required("param", nullable(string()));

    // ---- what a decision asks

    static final Schema QUESTION = named(
            "Question",
            object().required("type", oneOf("choice", "multi", "rank", "score", "number", "noul"))
                    .optional("instructions", any("Text, or any JSON the model reads"))
                    .optional("criteria", anyOf(mapOf(any()), arrayOf(any())))
                    .optional("threshold", number())
                    .optional("unit", string()));
    private static final Schema STATE =
            anyOf(string(DecisionRequest.MAX_STATE_CHARACTERS), mapOf(any()), arrayOf(any()));
    private static final Schema MEDIA_IN = object().optional("type", oneOf("image", "audio", "video"))
            .optional("file_id", string())
            .optional("data", string())
            .optional("path", string())
            .optional("name", string());
    private static final Schema QUESTION_SETTINGS = object().optional(
                    "act_threshold", SettingRange.ACT_THRESHOLD.schema())
            .optional("temperature", SettingRange.TEMPERATURE.schema())
            .optional("multi_threshold", SettingRange.MULTI_THRESHOLD.schema());
    private static final Schema SETTINGS_IN = object().optional("act_threshold", SettingRange.ACT_THRESHOLD.schema())
            .optional("temperature", SettingRange.TEMPERATURE.schema())
            .optional("multi_threshold", SettingRange.MULTI_THRESHOLD.schema())
            .optional("questions", mapOf(QUESTION_SETTINGS));
    /** The settings a decision ran with, and which layer each came from. */
    private static final Schema EFFECTIVE_SETTINGS = object().required("act_threshold", number())
            .required("temperature", number())
            .required("questions", mapOf(QUESTION_SETTINGS))
            .required("sources", mapOf(string()));

    private static final Schema ADD_OPTIONS = mapOf(anyOf(mapOf(any()), arrayOf(any())));
    private static final Schema INCLUDE = anyOf(
            string(), arrayOf(oneOf(DecisionRequest.INCLUDES.stream().sorted().toArray(String[]::new))));
    static final Schema DECISION_REQUEST = named(
            "DecisionRequest",
            object().optional("template", string())
                    .optional("variables", mapOf(any()))
                    .optional("state", STATE)
                    .optional("questions", mapOf(QUESTION))
                    .optional("skip", arrayOf(string()))
                    .optional("add_options", ADD_OPTIONS)
                    .optional(
                            "extensions",
                            object().optional("questions", mapOf(QUESTION))
                                    .optional("skip", arrayOf(string()))
                                    .optional("add_options", ADD_OPTIONS))
                    .optional("settings", SETTINGS_IN)
                    .optional("media", arrayOf(MEDIA_IN))
                    .optional("metadata", mapOf(string()))
                    .optional("store", anyOf(oneOf("full", "answers_only", "none", "true", "false", "1", "0"), bool()))
                    .optional("background", bool())
                    .optional("stream", bool())
                    .optional("model", string(200))
                    .optional("act_threshold", SettingRange.ACT_THRESHOLD.schema())
                    .optional("on_store_error", oneOf("serve", "fail"))
                    .optional("include", INCLUDE));

    // ---- what a decision answers

    /** The answer to one question: the fields of its type, and (but on the wire) the studio's gate. */
    private static Schema answer(String prefix, String type, boolean gated, Schema.Obj own) {
        var properties = new ArrayList<>(own.properties());
        properties.addFirst(new Schema.Property("type", oneOf(type), true));
        properties.add(new Schema.Property("probabilities", mapOf(PROBABILITY), true));
        properties.add(new Schema.Property("top_probability", PROBABILITY, true));
        properties.add(new Schema.Property("certainty", PROBABILITY, gated));
        properties.add(new Schema.Property("act", bool(), gated));
        properties.add(new Schema.Property("origin", oneOf("template", "extended", "extra", "adhoc"), gated));
        properties.add(new Schema.Property("dynamic_options", bool(), false));
        properties.add(new Schema.Property("raw_probabilities", mapOf(PROBABILITY), false));
        String name = type.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + type.substring(1) + "Answer";
        return named(prefix + name, new Schema.Obj(properties, false));
    }

    private static Schema answers(String prefix, boolean gated) {
        return named(
                prefix + "Answer",
                anyOf(
                        answer(
                                prefix,
                                "choice",
                                gated,
                                object().required("choice", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                "multi",
                                gated,
                                object().required("selected", arrayOf(string()))
                                        .required("threshold", number())
                                        .required("decision", arrayOf(string()))),
                        answer(
                                prefix,
                                "rank",
                                gated,
                                object().required("ranking", arrayOf(string()))
                                        .required("choice", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                "score",
                                gated,
                                object().required("score", number())
                                        .required("legend", mapOf(any()))
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                "number",
                                gated,
                                object().required("estimate", number())
                                        .required("most_likely", number())
                                        .required("range", arrayOf(number(), 2))
                                        .optional("unit", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", number())),
                        answer(
                                prefix,
                                "noul",
                                gated,
                                object().required("noul", PROBABILITY).required("decision", oneOf("yes", "no")))));
    }

    static final Schema ANSWER = answers("", true);
    static final Schema WIRE_ANSWER = answers("Wire", false);

    private static final Schema TEMPLATE_REF = object().required("id", string())
            .required("version", integer(1, Long.MAX_VALUE))
            .required("ref", string())
            .required("resolved_from", oneOf("latest", "pinned", "alias"))
            .required("attribution", oneOf("explicit", "header"));
    private static final Schema EXTENSIONS = object().required("questions", arrayOf(string()))
            .required("options", mapOf(arrayOf(string())))
            .required("skipped", arrayOf(string()));
    private static final Schema MEDIA_KEPT = object().required("type", oneOf("image", "audio", "video"))
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
            .required("questions", mapOf(QUESTION))
            .optional("rendered_state", string())
            .optional("redacted", arrayOf(string()));
    private static final Schema ERROR =
            object().required("type", string()).required("code", string()).required("message", string());
    static final Schema DECISION = named(
            "Decision",
            resource("decision")
                    .required("status", oneOf("queued", "in_progress", "completed", "failed", "cancelled"))
                    .required("created_at", timestamp())
                    .required("completed_at", nullable(timestamp()))
                    .required("template", nullable(TEMPLATE_REF))
                    .required("model", nullable(string()))
                    .required("model_requested", nullable(string()))
                    .optional("input", nullable(INPUT_FIELDS))
                    .required("extensions", EXTENSIONS)
                    .required("answers", nullable(mapOf(ANSWER)))
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
    static final Schema SUMMARY = named(
            "DecisionSummary",
            resource("decision.summary")
                    .required("status", oneOf("queued", "in_progress", "completed", "failed", "cancelled"))
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
    static final Schema LISTED = named("DecisionListItem", anyOf(SUMMARY, DECISION));

    static final Schema INPUT = named(
            "DecisionInput",
            INPUT_FIELDS.required("object", oneOf("decision.input")).required("decision_id", string()));
    static final Schema PREVIEW = object().required("object", oneOf("decision.preview"))
            .required("template", nullable(TEMPLATE_REF))
            .required("model", nullable(string()))
            .required("state", any())
            .required("rendered_state", string())
            .required("questions", mapOf(QUESTION))
            .required("extensions", EXTENSIONS)
            .required("media", arrayOf(MEDIA_KEPT))
            .required("settings", EFFECTIVE_SETTINGS)
            .required("usage", object().required("input_tokens", COUNT))
            .required(
                    "decide_request",
                    object().required("model", nullable(string()))
                            .required("state", any())
                            .required("questions", mapOf(QUESTION))
                            .optional("settings", object().required("temperature", number())))
            .required("store", STORE_LEVEL)
            .required("warnings", arrayOf(WARNING));
    static final Schema DECISION_PATCH =
            object().optional("metadata", nullable(mapOf(nullable(string())))).optional("pinned", bool());
    static final Schema DELETED = Schema.deleted("decision");

    // ---- the single-request format

    static final Schema DECIDE_REQUEST = object().required("model", string())
            .required("state", STATE)
            .required("questions", mapOf(QUESTION))
            .optional("media", arrayOf(MEDIA_IN))
            .optional("settings", any("temperature and act_threshold are read; the rest is ignored"))
            .optional("store", any("A storage level; one the studio cannot use is ignored with a warning"))
            .optional("metadata", any("Metadata strings; unusable metadata is ignored with a warning"));
    static final Schema DECIDE_ANSWER = named(
            "DecideAnswer",
            object().required("model", nullable(string()))
                    .required("answers", mapOf(WIRE_ANSWER))
                    .required("usage", object().required("input_tokens", COUNT).required("output_tokens", COUNT)));

    // ---- feedback

    static final Schema FEEDBACK_IN = object().required("expected", mapOf(any("The right answer, as a label")))
            .required("rating", nullable(integer(-1, 1)))
            .optional("note", nullable(string(2000)));
    static final Schema FEEDBACK = named(
            "Feedback",
            resource("feedback")
                    .required("decision_id", string())
                    .required("question", string())
                    .required("expected", nullable(any()))
                    .required("predicted", nullable(any()))
                    .required("correct", nullable(bool()))
                    .required("rating", nullable(integer(-1, 1)))
                    .required("note", nullable(string()))
                    .required("actor", string())
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
    static final Schema FEEDBACK_DELETED = Schema.deleted("feedback");

    // ---- history edits

    private static final Schema FILTER = mapOf(
            any("A filter of the decision list (a list means any of), or " + "sensitive_hash: {variable: value}"));
    static final Schema BULK_DELETE = object().optional("filter", nullable(FILTER))
            .optional("all", nullable(bool()))
            .optional("dry_run", nullable(bool()))
            .optional("include_pinned", nullable(bool()));
    static final Schema BULK_REDACT = object().optional("filter", nullable(FILTER))
            .optional("all", nullable(bool()))
            .optional("dry_run", nullable(bool()))
            .optional("include_pinned", nullable(bool()))
            .required("fields", arrayOf(string()));
    static final Schema REDACT = object().required("fields", arrayOf(string()));
    static final Schema BULK_DELETED = object().required("object", oneOf("decision.bulk_delete"))
            .required("matched", COUNT)
            .required("deleted", COUNT)
            .required("skipped_pinned", COUNT)
            .required("dry_run", bool());
    static final Schema BULK_REDACTED = object().required("object", oneOf("decision.bulk_redact"))
            .required("matched", COUNT)
            .required("redacted", COUNT)
            .required("skipped_pinned", COUNT)
            .required("dry_run", bool());

    // ---- examples

    private static final Schema.Obj EXAMPLE_FIELDS = object().optional("variables", mapOf(any()))
            .optional("state", STATE)
            .optional("media", arrayOf(MEDIA_IN))
            .optional("expected", mapOf(any("The right answer, as a label")))
            .optional("tags", arrayOf(string(64)))
            .optional("split", oneOf("test", "calibration"))
            .optional("note", nullable(string(2000)));
    static final Schema EXAMPLE_IN = named("ExampleRequest", EXAMPLE_FIELDS.optional("from_decision", string()));
    static final Schema EXAMPLE_PATCH = object().optional("variables", mapOf(any()))
            .optional("state", STATE)
            .optional("media", nullable(arrayOf(MEDIA_IN)))
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
                    .required("media", nullable(arrayOf(MEDIA_KEPT)))
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
    static final Schema IMPORT = object().required("examples", arrayOf(EXAMPLE_IN, ExampleRoutes.MAX_IMPORT));
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
    static final Schema JSON_LINES = any("One JSON object a line");

    // ---- comparisons, settings, stats, compatibility

    private static final Schema VERSION_SUMMARY = object().required("n", COUNT)
            .required("distribution", mapOf(PROBABILITY))
            .required("mean_certainty", PROBABILITY)
            .required("act_rate", PROBABILITY)
            .required("feedback", object().required("labelled", COUNT).required("accuracy", nullable(PROBABILITY)));
    static final Schema COMPARISON = object().required("object", oneOf("template.comparison"))
            .required("template", string())
            .required("versions", arrayOf(integer(1, Long.MAX_VALUE), 2))
            .required("paired_by", oneOf("variables", "state"))
            .required(
                    "questions",
                    mapOf(object().required("comparability", string())
                            .required("by_version", mapOf(VERSION_SUMMARY))
                            .optional(
                                    "paired",
                                    object().required("n", COUNT)
                                            .required("agreement", PROBABILITY)
                                            .required(
                                                    "flips",
                                                    arrayOf(object().required("from", string())
                                                            .required("to", string())
                                                            .required("n", COUNT)))
                                            .required("sample", arrayOf(arrayOf(string(), 2))))))
            .required("operational", mapOf(object().required("n", COUNT).required("failed", COUNT)));

    private static final Schema HISTORY_SETTINGS = object().optional("store", STORE_LEVEL)
            .optional("store_media", bool())
            .optional("on_store_error", oneOf("serve", "fail"))
            .optional("retention_days", integer(0, 36_500))
            .optional("keep_labelled", bool())
            .optional("max_storage_gb", number());
    static final Schema SETTINGS_PATCH = object().optional("history", HISTORY_SETTINGS)
            .optional("decisions", object().optional("default_act_threshold", number()));
    static final Schema SETTINGS = named(
            "StudioSettings",
            object().required("object", oneOf("settings"))
                    .required(
                            "history",
                            object().required("store", STORE_LEVEL)
                                    .required("store_media", bool())
                                    .required("on_store_error", oneOf("serve", "fail"))
                                    .required("retention_days", integer(0, 36_500))
                                    .required("keep_labelled", bool())
                                    .required("max_storage_gb", number()))
                    .required("decisions", object().required("default_act_threshold", number()))
                    .required(
                            "storage",
                            object().required("decisions", COUNT)
                                    .required("bytes", COUNT)
                                    .required("oldest_at", nullable(timestamp()))
                                    .required("last_sweep_at", nullable(timestamp()))
                                    .required("last_sweep_deleted", nullable(COUNT))
                                    .required("last_sweep_files_removed", nullable(COUNT))));

    private static final Schema QUESTION_STATS = object().required("runs", COUNT)
            .required("excluded_runs", COUNT)
            .required("mean_certainty", PROBABILITY)
            .required("act_rate", PROBABILITY)
            .required("distribution", nullable(mapOf(PROBABILITY)))
            .required("labelled", COUNT)
            .required("accuracy", nullable(PROBABILITY))
            .optional("comparability", string());
    static final Schema STATS = named(
            "DecisionStats",
            object().required("object", oneOf("decision.stats"))
                    .required(
                            "group_by",
                            arrayOf(oneOf(Stats.GROUPS.stream().sorted().toArray(String[]::new))))
                    .required(
                            "what_if",
                            nullable(object().required("temperature", nullable(number()))
                                    .required("act_threshold", nullable(number()))))
                    .required(
                            "groups",
                            arrayOf(object().required("key", mapOf(any()))
                                    .required("count", COUNT)
                                    .required("failed", COUNT)
                                    .required("act_rate", PROBABILITY)
                                    .required(
                                            "latency_ms",
                                            object().required("p50", number()).required("p95", number()))
                                    .required("questions", mapOf(QUESTION_STATS))
                                    .optional(
                                            "what_if",
                                            object().required("act_rate", PROBABILITY)
                                                    .required("labelled_acting", COUNT)
                                                    .required("accuracy_when_acting", nullable(PROBABILITY))))));

    static final Schema COMPATIBILITY_IN = object().required("questions", mapOf(QUESTION))
            .optional("media_types", arrayOf(oneOf("image", "audio", "video"), 3));
    static final Schema COMPATIBILITY = object().required("object", oneOf("model.compatibility"))
            .required(
                    "models",
                    arrayOf(object().required("model", string())
                            .required("name", string())
                            .required("status", string())
                            .required("ok", bool())
                            .required(
                                    "problems",
                                    arrayOf(object().required("code", string()).required("message", string())))))
            .required("warnings", arrayOf(WARNING));

    // ---- query parameters

    static final QueryParam VIEW = new QueryParam(
            "view", oneOf("summary", "full"), "summary (default) lists what was decided; full lists whole decisions.");
    static final QueryParam INCLUDE_PARAM = new QueryParam(
            "include",
            string(),
            "What a decision adds, " + "comma-separated: "
                    + String.join(
                            ", ", DecisionRequest.INCLUDES.stream().sorted().toList()) + ".");
    static final QueryParam WAIT =
            new QueryParam("wait", number(), "Seconds (0 to 60) to wait for a background " + "decision to finish.");
    static final QueryParam RENDER = new QueryParam(
            "format", oneOf("decide"), "decide renders the decision as POST " + "/v1/decide answers it.");
    static final QueryParam EXPORT_FORMAT = new QueryParam("format", oneOf("jsonl", "csv"), "jsonl (default) or csv.");

    /** The list's filters: a comma means any of; every filter sent must hold. */
    static final List<QueryParam> FILTERS = List.of(
            new QueryParam("template", string(), "Template ids, id@version or id@alias, or none (ad hoc)."),
            new QueryParam("version", string(), "Template version numbers."),
            new QueryParam("model", string(), "Model ids."),
            new QueryParam("status", string(), "queued, in_progress, completed, failed, cancelled."),
            new QueryParam("surface", string(), "Where decisions came from: api, wire, rerun."),
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

    static final QueryParam GROUP_BY = new QueryParam(
            "group_by",
            string(),
            "Groups, comma-separated: "
                    + String.join(", ", Stats.GROUPS.stream().sorted().toList()) + ".");
    static final QueryParam INCLUDE_EXTENDED =
            new QueryParam("include_extended", bool(), "Count the questions and options callers added too.");
    static final QueryParam WHAT_IF_TEMPERATURE = new QueryParam(
            "what_if.temperature", SettingRange.TEMPERATURE.schema(), "Recompute the gate under this temperature.");
    static final QueryParam WHAT_IF_ACT_THRESHOLD = new QueryParam(
            "what_if.act_threshold",
            SettingRange.ACT_THRESHOLD.schema(),
            "Recompute the gate under this act threshold.");
    static final QueryParam VERSIONS = new QueryParam(
            "versions", string(), "The two versions, such as 1,2 or " + "stable,latest (default: the latest two).");

    static final QueryParam REVISION =
            new QueryParam("revision", COUNT, "A past revision of the examples " + "(default: the current one).");
    static final QueryParam EXAMPLE_LIMIT =
            new QueryParam("limit", integer(1, 1000), "How many examples a page holds (default 100).");
    static final QueryParam SPLIT = new QueryParam("split", oneOf("test", "calibration"), "Only this split.");
    static final QueryParam LABELLED = new QueryParam("labelled", bool(), "Whether examples have expected answers.");
    static final QueryParam TAG = new QueryParam("tag", string(), "Only examples with this tag.");
    static final QueryParam SEARCH = new QueryParam("q", string(), "Text the example's input contains.");
}
