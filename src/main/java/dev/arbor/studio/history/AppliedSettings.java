package dev.arbor.studio.history;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings a decision shows, and their JSON: the decision-level values, the per-question values that came from
 * a per-question layer, and the layer each came from ({@code request}, {@code template...}, {@code studio}).
 *
 * @param questions per question key, the settings a per-question layer gave, by setting name
 * @param sources the layer of each setting, by its path ({@code act_threshold}, {@code questions.<key>.<setting>})
 */
public record AppliedSettings(
        double actThreshold,
        double temperature,
        Map<String, Map<String, Double>> questions,
        Map<String, String> sources) {
    public AppliedSettings {
        var copy = new LinkedHashMap<String, Map<String, Double>>();
        questions.forEach((key, own) -> copy.put(key, Collections.unmodifiableMap(new LinkedHashMap<>(own))));
        questions = Collections.unmodifiableMap(copy);
        sources = Collections.unmodifiableMap(new LinkedHashMap<>(sources));
    }

    /** A question's own value of a setting when a per-question layer gave one, else the decision's. */
    public double of(String question, String setting) {
        Double own = questions.getOrDefault(question, Map.of()).get(setting);
        if (own != null) {
            return own;
        }
        return switch (setting) {
            case "act_threshold" -> actThreshold;
            case "temperature" -> temperature;
            default -> throw new IllegalArgumentException("no decision-level setting " + setting);
        };
    }

    /** The settings the caller sent, as a request's {@code settings} gives them: those whose layer was the request. */
    public ObjectNode requested() {
        ObjectNode request = Json.object();
        sources.forEach((path, layer) -> {
            if (layer.equals("request")) {
                request.put(path, path.equals("act_threshold") ? actThreshold : temperature);
            } else if (layer.equals("request.questions")) {
                String[] parts = path.split("\\.", 3); // questions.<key>.<setting>
                ObjectNode own = request.has("questions")
                        ? (ObjectNode) request.get("questions")
                        : request.putObject("questions");
                ObjectNode question = own.has(parts[1]) ? (ObjectNode) own.get(parts[1]) : own.putObject(parts[1]);
                // a setting's source names a question only when that question's layer gave it
                question.put(
                        parts[2], requireNonNull(questions.get(parts[1]), path).get(parts[2]));
            }
        });
        return request;
    }

    public ObjectNode json() {
        ObjectNode json = Json.object();
        json.put("act_threshold", actThreshold);
        json.put("temperature", temperature);
        ObjectNode perQuestion = json.putObject("questions");
        questions.forEach((key, own) -> own.forEach(perQuestion.putObject(key)::put));
        ObjectNode layers = json.putObject("sources");
        sources.forEach(layers::put);
        return json;
    }

    /** Reads settings as {@link #json} wrote them. */
    public static AppliedSettings read(JsonNode json) {
        var questions = new LinkedHashMap<String, Map<String, Double>>();
        json.path("questions").properties().forEach(e -> {
            var own = new LinkedHashMap<String, Double>();
            e.getValue()
                    .properties()
                    .forEach(s -> own.put(s.getKey(), s.getValue().asDouble()));
            questions.put(e.getKey(), own);
        });
        var sources = new LinkedHashMap<String, String>();
        json.path("sources")
                .properties()
                .forEach(e -> sources.put(e.getKey(), e.getValue().asText()));
        return new AppliedSettings(
                json.path("act_threshold").asDouble(), json.path("temperature").asDouble(), questions, sources);
    }
}
