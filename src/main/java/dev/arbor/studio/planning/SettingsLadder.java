package dev.arbor.studio.planning;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.errors.Problems;
import dev.arbor.studio.definitions.QuestionType;
import dev.arbor.studio.history.AppliedSettings;
import dev.arbor.studio.questions.Question;
import dev.arbor.studio.questions.QuestionDefinition;
import dev.arbor.studio.templates.Templates;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where each setting of each question comes from. The first layer with a value wins: the request's per-question
 * value, the request's value, the template's per-model per-question value, its per-model value, its per-question
 * value, its value, then the studio default. A decision-level request value therefore beats a template's
 * per-question value: the caller asked for it on this call.
 */
public final class SettingsLadder {
    public static final double DEFAULT_TEMPERATURE = 1.0;
    private static final List<String> KEYS = List.of("act_threshold", "temperature", "multi_threshold");

    /** One question's settings, every value resolved. */
    public record QuestionSettings(double actThreshold, double temperature, double multiThreshold) {}

    /** @param shown the settings as the decision shows them */
    public record Effective(
            double actThreshold, double temperature, Map<String, QuestionSettings> questions, AppliedSettings shown) {
        public QuestionSettings of(String key) {
            return requireNonNull(questions.get(key), () -> "no settings for question " + key);
        }

        public ObjectNode json() {
            return shown.json();
        }
    }

    private record Layer(String name, JsonNode values) {}

    private SettingsLadder() {}

    /**
     * @param template the template's {@code settings} in normal form (empty without a template)
     * @param request the request's {@code settings}, checked
     * @param defaultAct the studio's act threshold, the last layer
     */
    public static Effective resolve(
            ObjectNode template, ObjectNode request, String model, List<Question> questions, double defaultAct) {
        JsonNode perModel = template.path("models").path(model);
        var decisionLayers = List.of(
                new Layer("request", request),
                new Layer("template.models." + model, perModel),
                new Layer("template", template));
        var sources = new LinkedHashMap<String, String>();
        double act = decisionLevel(decisionLayers, "act_threshold", defaultAct, sources);
        double temperature = decisionLevel(decisionLayers, "temperature", DEFAULT_TEMPERATURE, sources);
        var perQuestion = new LinkedHashMap<String, Map<String, Double>>();

        var resolved = new LinkedHashMap<String, QuestionSettings>();
        for (Question question : questions) {
            String key = question.key();
            var layers = List.of(
                    new Layer("request.questions", request.path("questions").path(key)),
                    new Layer("request", request),
                    new Layer(
                            "template.models." + model + ".questions",
                            perModel.path("questions").path(key)),
                    new Layer("template.models." + model, perModel),
                    new Layer("template.questions", template.path("questions").path(key)),
                    new Layer("template", template));
            double definedThreshold =
                    question.definition() instanceof QuestionDefinition.Multi multi ? multi.threshold() : 0;
            double[] values = new double[KEYS.size()];
            for (int i = 0; i < KEYS.size(); i++) {
                String setting = KEYS.get(i);
                if (setting.equals("multi_threshold") && question.type() != QuestionType.MULTI) {
                    continue;
                }
                Optional<Found> found = pick(layers, setting);
                if (found.isPresent() && found.get().layer().endsWith("questions")) {
                    perQuestion
                            .computeIfAbsent(key, k -> new LinkedHashMap<>())
                            .put(setting, found.get().value());
                    sources.put("questions." + key + "." + setting, found.get().layer());
                }
                values[i] = found.map(Found::value)
                        .orElse(
                                switch (setting) {
                                    case "act_threshold" -> defaultAct;
                                    case "temperature" -> DEFAULT_TEMPERATURE;
                                    default -> definedThreshold;
                                });
            }
            resolved.put(key, new QuestionSettings(values[0], values[1], values[2]));
        }
        return new Effective(
                act, temperature, Map.copyOf(resolved), new AppliedSettings(act, temperature, perQuestion, sources));
    }

    private record Found(String layer, double value) {}

    private static double decisionLevel(
            List<Layer> layers, String setting, double fallback, Map<String, String> sources) {
        Optional<Found> found = pick(layers, setting);
        sources.put(setting, found.map(Found::layer).orElse("studio"));
        return found.map(Found::value).orElse(fallback);
    }

    private static Optional<Found> pick(List<Layer> layers, String setting) {
        for (Layer layer : layers) {
            JsonNode value = layer.values().path(setting);
            if (value.isNumber()) {
                return Optional.of(new Found(layer.name(), value.doubleValue()));
            }
        }
        return Optional.empty();
    }

    private static Map<String, QuestionType> types(List<Question> questions) {
        var types = new LinkedHashMap<String, QuestionType>();
        questions.forEach(q -> types.put(q.key(), q.type()));
        return types;
    }

    /** Checks a request's settings against the questions it asks. */
    static ObjectNode check(JsonNode settings, List<Question> questions, Problems problems) {
        return Templates.checkSettings(settings, types(questions), problems);
    }
}
