package dev.arbor.studio.questions;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.anyOf;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;

import dev.arbor.platform.http.Schema;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.definitions.SettingRange;
import java.util.ArrayList;
import java.util.Arrays;

/** The shapes of questions and of their answers, for the OpenAPI document. */
public final class QuestionShapes {
    private QuestionShapes() {}

    private static final Schema PROBABILITY = number();
    public static final Schema QUESTION = named(
            "Question",
            object().required("type", oneOf(QuestionType.wires().toArray(String[]::new)))
                    .optional("instructions", any("Text, or any JSON the model reads"))
                    .optional("criteria", anyOf(mapOf(any()), arrayOf(any())))
                    .optional("threshold", number())
                    .optional("unit", string()));
    public static final Schema QUESTION_SETTINGS = object().optional(
                    "act_threshold", SettingRange.ACT_THRESHOLD.schema())
            .optional("temperature", SettingRange.TEMPERATURE.schema())
            .optional("multi_threshold", SettingRange.MULTI_THRESHOLD.schema());
    /** The answer to one question: the fields of its type, and (but on the wire) the studio's gate. */
    private static Schema answer(String prefix, QuestionType type, boolean gated, Schema.Obj own) {
        var properties = new ArrayList<>(own.properties());
        properties.addFirst(new Schema.Property("type", oneOf(type.wire()), true));
        properties.add(new Schema.Property("probabilities", mapOf(PROBABILITY), true));
        properties.add(new Schema.Property("top_probability", PROBABILITY, true));
        properties.add(new Schema.Property("certainty", PROBABILITY, gated));
        properties.add(new Schema.Property("act", bool(), gated));
        properties.add(new Schema.Property(
                "origin",
                oneOf(Arrays.stream(Question.Origin.values())
                        .map(Question.Origin::wire)
                        .toArray(String[]::new)),
                gated));
        properties.add(new Schema.Property("dynamic_options", bool(), false));
        properties.add(new Schema.Property("raw_probabilities", mapOf(PROBABILITY), false));
        // only when a fitted head answered (the version names one for the model); zero-shot answers have neither
        properties.add(new Schema.Property("method", oneOf("fitted_head"), false));
        properties.add(new Schema.Property("head", string(), false));
        String wire = type.wire();
        String name = wire.substring(0, 1).toUpperCase(java.util.Locale.ROOT) + wire.substring(1) + "Answer";
        return named(prefix + name, new Schema.Obj(properties, false));
    }

    private static Schema answers(String prefix, boolean gated) {
        return named(
                prefix + "Answer",
                anyOf(
                        answer(
                                prefix,
                                QuestionType.CHOICE,
                                gated,
                                object().required("choice", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                QuestionType.MULTI,
                                gated,
                                object().required("selected", arrayOf(string()))
                                        .required("threshold", number())
                                        .required("decision", arrayOf(string()))),
                        answer(
                                prefix,
                                QuestionType.RANK,
                                gated,
                                object().required("ranking", arrayOf(string()))
                                        .required("choice", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                QuestionType.SCORE,
                                gated,
                                object().required("score", number())
                                        .required("legend", mapOf(any()))
                                        .required("confidence", PROBABILITY)
                                        .required("decision", string())),
                        answer(
                                prefix,
                                QuestionType.NUMBER,
                                gated,
                                object().required("estimate", number())
                                        .required("most_likely", number())
                                        .required("range", arrayOf(number(), 2))
                                        .optional("unit", string())
                                        .required("confidence", PROBABILITY)
                                        .required("decision", number())),
                        answer(
                                prefix,
                                QuestionType.NOUL,
                                gated,
                                object().required("noul", PROBABILITY).required("decision", oneOf("yes", "no")))));
    }

    public static final Schema ANSWER = answers("", true);
    public static final Schema WIRE_ANSWER = answers("Wire", false);
}
