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
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.QueryParam;
import dev.arbor.platform.http.Schema;
import dev.arbor.platform.http.Waiting;
import dev.arbor.studio.definitions.SettingRange;
import dev.arbor.studio.history.HistoryShapes;
import dev.arbor.studio.planning.DecisionRequest;
import dev.arbor.studio.questions.QuestionShapes;

/**
 * The shapes of decisions, their answers, examples, feedback, history edits, comparisons, settings and stats, for
 * the OpenAPI document. The rules of each field are the parsers' ({@link DecisionRequest}, {@link StudioSettings},
 * ...); this gives the fields and their types, and the OpenAPI test checks real requests and answers against it.
 */
public final class DecisionShapes {
    private DecisionShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);
    private static final Schema PROBABILITY = number();
    // ---- what a decision asks

    public static final Schema STATE =
            anyOf(string(DecisionRequest.MAX_STATE_CHARACTERS), mapOf(any()), arrayOf(any()));
    public static final Schema MEDIA_IN = object().optional("type", oneOf("image", "audio", "video"))
            .optional("file_id", string())
            .optional("data", string())
            .optional("path", string())
            .optional("name", string());
    private static final Schema SETTINGS_IN = object().optional("act_threshold", SettingRange.ACT_THRESHOLD.schema())
            .optional("temperature", SettingRange.TEMPERATURE.schema())
            .optional("multi_threshold", SettingRange.MULTI_THRESHOLD.schema())
            .optional("questions", mapOf(QuestionShapes.QUESTION_SETTINGS));
    private static final Schema ADD_OPTIONS = mapOf(anyOf(mapOf(any()), arrayOf(any())));
    private static final Schema INCLUDE = anyOf(
            string(), arrayOf(oneOf(DecisionRequest.INCLUDES.stream().sorted().toArray(String[]::new))));
    static final Schema DECISION_REQUEST = named(
            "DecisionRequest",
            object().optional("template", string())
                    .optional("variables", mapOf(any()))
                    .optional("state", STATE)
                    .optional("questions", mapOf(QuestionShapes.QUESTION))
                    .optional("skip", arrayOf(string()))
                    .optional("add_options", ADD_OPTIONS)
                    .optional(
                            "extensions",
                            object().optional("questions", mapOf(QuestionShapes.QUESTION))
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

    static final Schema PREVIEW = object().required("object", oneOf("decision.preview"))
            .required("template", nullable(HistoryShapes.TEMPLATE_REF))
            .required("model", nullable(string()))
            .required("state", any())
            .required("rendered_state", string())
            .required("questions", mapOf(QuestionShapes.QUESTION))
            .required("extensions", HistoryShapes.EXTENSIONS)
            .required("media", arrayOf(HistoryShapes.MEDIA_KEPT))
            .required("settings", HistoryShapes.EFFECTIVE_SETTINGS)
            .required("usage", object().required("input_tokens", COUNT))
            .required(
                    "decide_request",
                    object().required("model", nullable(string()))
                            .required("state", any())
                            .required("questions", mapOf(QuestionShapes.QUESTION))
                            .optional("settings", object().required("temperature", number())))
            .required("store", HistoryShapes.STORE_LEVEL)
            .required("warnings", arrayOf(HistoryShapes.WARNING));
    // ---- the single-request format

    static final Schema DECIDE_REQUEST = object().required("model", string())
            .required("state", STATE)
            .required("questions", mapOf(QuestionShapes.QUESTION))
            .optional("media", arrayOf(MEDIA_IN))
            .optional("settings", any("temperature and act_threshold are read; the rest is ignored"))
            .optional("store", any("A storage level; one the studio cannot use is ignored with a warning"))
            .optional("metadata", any("Metadata strings; unusable metadata is ignored with a warning"));
    static final Schema DECIDE_ANSWER = named(
            "DecideAnswer",
            object().required("model", nullable(string()))
                    .required("answers", mapOf(QuestionShapes.WIRE_ANSWER))
                    .required("usage", object().required("input_tokens", COUNT).required("output_tokens", COUNT)));

    // ---- feedback

    // ---- history edits

    // ---- examples

    // ---- comparisons, settings, stats, compatibility

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
            .required("warnings", arrayOf(HistoryShapes.WARNING));

    // ---- query parameters

    static final QueryParam INCLUDE_PARAM = new QueryParam(
            "include",
            string(),
            "What a decision adds, " + "comma-separated: "
                    + String.join(
                            ", ", DecisionRequest.INCLUDES.stream().sorted().toList()) + ".");
    static final Waiting WAIT = Waiting.on("a background decision");
    static final QueryParam RENDER = new QueryParam(
            "format", oneOf("decide"), "decide renders the decision as POST " + "/v1/decide answers it.");
}
