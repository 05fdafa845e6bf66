package dev.arbor.studio.stats;

import static dev.arbor.platform.http.Schema.any;
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
import dev.arbor.studio.definitions.SettingRange;

/** The shapes of statistics and version comparisons, for the OpenAPI document. */
final class StatsShapes {
    private StatsShapes() {}

    private static final Schema COUNT = integer(0, Long.MAX_VALUE);
    private static final Schema PROBABILITY = number();

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
}
