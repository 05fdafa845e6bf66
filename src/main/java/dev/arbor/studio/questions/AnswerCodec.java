package dev.arbor.studio.questions;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * An {@link Answer} as a decision's JSON shows it (the API, the single-request format's source, history's column),
 * and back: the one place that knows its field names and their order.
 */
public final class AnswerCodec {
    private static final String FITTED_HEAD = "fitted_head";

    private AnswerCodec() {}

    public static ObjectNode write(Answer answer) {
        ObjectNode json = Json.object();
        json.put("type", answer.type().wire());
        switch (answer) {
            case Answer.Choice choice -> {
                json.put("choice", choice.choice());
                json.set("probabilities", probabilities(choice.probabilities()));
                json.put("confidence", choice.confidence());
            }
            case Answer.Rank rank -> {
                ArrayNode ranking = json.putArray("ranking");
                rank.ranking().forEach(ranking::add);
                json.put("choice", rank.choice());
                json.set("probabilities", probabilities(rank.probabilities()));
                json.put("confidence", rank.confidence());
            }
            case Answer.Score score -> {
                json.put("score", score.score());
                ObjectNode legend = json.putObject("legend");
                for (int i = 0; i < score.legend().size(); i++) {
                    legend.set(Integer.toString(i), score.legend().get(i));
                }
                json.set("probabilities", probabilities(score.probabilities()));
                json.put("confidence", score.confidence());
            }
            case Answer.Estimate estimate -> {
                json.put("estimate", estimate.estimate());
                json.set("most_likely", number(estimate.mostLikely()));
                ArrayNode range = json.putArray("range");
                range.add(number(estimate.low()));
                range.add(number(estimate.high()));
                estimate.unit().ifPresent(unit -> json.put("unit", unit));
                json.set("probabilities", probabilities(estimate.probabilities()));
                json.put("confidence", estimate.confidence());
            }
            case Answer.YesNo yesNo -> {
                json.put("noul", yesNo.noul());
                json.set("probabilities", probabilities(yesNo.probabilities()));
            }
            case Answer.Multi multi -> {
                ArrayNode selected = json.putArray("selected");
                multi.selected().forEach(selected::add);
                json.set("probabilities", probabilities(multi.probabilities()));
                json.put("threshold", multi.threshold());
            }
        }
        json.set("decision", decision(answer));
        json.put("top_probability", answer.topProbability());
        Answer.Gate gate = answer.gate();
        json.put("certainty", gate.certainty());
        json.put("act", gate.act());
        json.put("origin", gate.origin().wire());
        if (gate.dynamicOptions()) {
            json.put("dynamic_options", true);
        }
        gate.head().ifPresent(head -> json.put("method", FITTED_HEAD).put("head", head));
        return json;
    }

    /** Reads an answer as {@link #write} wrote it; a value of another shape is a broken record. */
    public static Answer read(JsonNode json) {
        Wire wire = Json.mapper().convertValue(json, Wire.class);
        QuestionType type = QuestionType.parse(wire.type())
                .orElseThrow(() -> new IllegalArgumentException("unknown answer type " + wire.type()));
        Map<String, Double> probabilities =
                Optional.ofNullable(wire.probabilities()).orElse(Map.of());
        double top = wire.topProbability();
        Answer.Gate gate = new Answer.Gate(
                wire.certainty(),
                wire.act(),
                Question.Origin.valueOf(required(wire.origin(), "origin").toUpperCase(Locale.ROOT)),
                wire.dynamicOptions(),
                FITTED_HEAD.equals(wire.method()) ? Optional.of(required(wire.head(), "head")) : Optional.empty());
        double confidence = wire.confidence();
        return switch (type) {
            case CHOICE -> new Answer.Choice(required(wire.choice(), "choice"), probabilities, confidence, top, gate);
            case RANK ->
                new Answer.Rank(
                        listed(wire.ranking()),
                        required(wire.choice(), "choice"),
                        probabilities,
                        confidence,
                        top,
                        gate);
            case MULTI -> new Answer.Multi(listed(wire.selected()), probabilities, wire.threshold(), top, gate);
            case SCORE ->
                new Answer.Score(
                        wire.score(),
                        List.copyOf(Optional.ofNullable(wire.legend())
                                .orElse(Map.of())
                                .values()),
                        probabilities,
                        confidence,
                        required(wire.decision(), "decision").asText(),
                        top,
                        gate);
            case NUMBER -> {
                List<JsonNode> range = listed(wire.range());
                if (range.size() != 2) {
                    throw new IllegalArgumentException("a number answer's range has two ends, not " + range);
                }
                yield new Answer.Estimate(
                        wire.estimate(),
                        number(required(wire.mostLikely(), "most_likely")),
                        number(range.get(0)),
                        number(range.get(1)),
                        Optional.ofNullable(wire.unit()),
                        probabilities,
                        confidence,
                        top,
                        gate);
            }
            case NOUL ->
                new Answer.YesNo(
                        wire.noul(),
                        probabilities,
                        "yes".equals(required(wire.decision(), "decision").asText()),
                        top,
                        gate);
        };
    }

    /** An answer's JSON as Jackson binds it, the fields of every type together; only {@link #read} sees it. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    private record Wire(
            String type,
            String choice,
            List<String> ranking,
            List<String> selected,
            Map<String, Double> probabilities,
            double confidence,
            double threshold,
            double score,
            Map<String, JsonNode> legend,
            double estimate,
            @JsonProperty("most_likely") JsonNode mostLikely,
            List<JsonNode> range,
            String unit,
            double noul,
            JsonNode decision,
            @JsonProperty("top_probability") double topProbability,
            double certainty,
            boolean act,
            String origin,
            @JsonProperty("dynamic_options") boolean dynamicOptions,
            String method,
            String head) {}

    /** An answer's {@code decision}: the option, level key, yes or no, value, or (multi) the options selected. */
    public static JsonNode decision(Answer answer) {
        return switch (answer) {
            case Answer.Estimate estimate -> number(estimate.mostLikely());
            case Answer.Multi multi -> {
                ArrayNode selected = Json.mapper().createArrayNode();
                multi.selected().forEach(selected::add);
                yield selected;
            }
            default -> Json.mapper().valueToTree(answer.word());
        };
    }

    /** The answers of a decision by question key, in question order. */
    public static ObjectNode writeAll(Map<String, Answer> answers) {
        ObjectNode json = Json.object();
        answers.forEach((key, answer) -> json.set(key, write(answer)));
        return json;
    }

    public static Map<String, Answer> readAll(JsonNode json) {
        var answers = new LinkedHashMap<String, Answer>();
        json.properties().forEach(e -> answers.put(e.getKey(), read(e.getValue())));
        return answers;
    }

    /** A value of a number question as its JSON text reads ({@code 5}, {@code 2.5}). */
    static String numberText(Number value) {
        return number(value).asText();
    }

    private static JsonNode number(Number value) {
        return Json.mapper().valueToTree(value);
    }

    private static Number number(JsonNode json) {
        if (!json.isNumber()) {
            throw new IllegalArgumentException("not a number: " + json);
        }
        return json.isIntegralNumber() ? (Number) json.longValue() : (Number) json.doubleValue();
    }

    private static ObjectNode probabilities(Map<String, Double> probabilities) {
        ObjectNode json = Json.object();
        probabilities.forEach(json::put);
        return json;
    }

    private static <T> List<T> listed(List<T> values) {
        return values == null ? List.of() : values;
    }

    private static <T> T required(T value, String field) {
        if (value == null || (value instanceof JsonNode node && node.isNull())) {
            throw new IllegalArgumentException("answer without `" + field + "`");
        }
        return value;
    }
}
