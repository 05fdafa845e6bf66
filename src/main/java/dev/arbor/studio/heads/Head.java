package dev.arbor.studio.heads;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fitted head for one question: softmax layers over a model's embedding of the situation, and the facts of its
 * training. Immutable once fitted; a template version references it by id. Choice, yes/no, score and rank have one
 * layer over their options (a rank's options ordered by it); multi has one yes/no layer per option.
 *
 * @param classes the question's option keys, in the order of the layers' classes (multi: one layer per option)
 * @param parts one layer, or one two-class layer (doesn't apply, applies) per option for multi
 */
public record Head(QuestionType type, List<String> classes, List<Softmax> parts, Facts facts) {
    /**
     * What the head was fitted on and how well it did under cross-validation.
     *
     * @param counts labels per option (multi: how often each option applied)
     * @param cvAccuracy out-of-fold accuracy (multi: the mean over options)
     * @param cvLogLoss out-of-fold log loss after calibration (multi: the mean over options)
     */
    public record Facts(
            String model,
            int dimension,
            int labels,
            Map<String, Integer> counts,
            double cvAccuracy,
            double cvLogLoss,
            int folds,
            Instant fittedAt) {
        public Facts {
            requireNonNull(model, "model");
            requireNonNull(fittedAt, "fittedAt");
            counts = Collections.unmodifiableMap(new LinkedHashMap<>(counts));
        }
    }

    public Head {
        requireNonNull(type, "type");
        requireNonNull(facts, "facts");
        classes = List.copyOf(classes);
        parts = List.copyOf(parts);
        int expected = type == QuestionType.MULTI ? classes.size() : 1;
        if (parts.size() != expected) {
            throw new IllegalArgumentException("a " + type.wire() + " head over " + classes.size() + " options has "
                    + expected + " layers, not " + parts.size());
        }
    }

    /**
     * The head's probability per option key for one embedding: a distribution over the options, or for multi the
     * probability that each option applies.
     */
    public Map<String, Double> probabilities(float[] vector) {
        var probabilities = new LinkedHashMap<String, Double>();
        if (type == QuestionType.MULTI) {
            for (int i = 0; i < classes.size(); i++) {
                probabilities.put(classes.get(i), parts.get(i).probabilities(vector)[1]);
            }
        } else {
            double[] p = parts.getFirst().probabilities(vector);
            for (int i = 0; i < classes.size(); i++) {
                probabilities.put(classes.get(i), p[i]);
            }
        }
        return probabilities;
    }

    /** The head as stored: its facts in JSON, each layer's weights as little-endian float32 in base64. */
    public ObjectNode json() {
        ObjectNode json = Json.object();
        json.put("type", type.wire());
        classes.forEach(json.putArray("classes")::add);
        var layers = json.putArray("parts");
        for (Softmax part : parts) {
            ObjectNode layer = layers.addObject();
            layer.put("classes", part.classes());
            layer.put("temperature", part.temperature());
            layer.put("regularisation", part.regularisation());
            layer.put("cv_accuracy", part.cvAccuracy());
            layer.put("cv_log_loss", part.cvLogLoss());
            layer.put("weights", encode(part.weights()));
        }
        json.set("facts", factsJson());
        return json;
    }

    /** The training facts as the API shows them. */
    public ObjectNode factsJson() {
        ObjectNode json = Json.object();
        json.put("model", facts.model());
        json.put("dimension", facts.dimension());
        json.put("labels", facts.labels());
        ObjectNode counts = json.putObject("label_counts");
        facts.counts().forEach(counts::put);
        json.put("cv_accuracy", facts.cvAccuracy());
        json.put("cv_log_loss", facts.cvLogLoss());
        json.put("folds", facts.folds());
        var penalties = json.putArray("regularisation");
        parts.forEach(part -> penalties.add(part.regularisation()));
        json.put("fitted_at", facts.fittedAt().getEpochSecond());
        return json;
    }

    /** A head as {@link #json()} stored it. */
    public static Head read(JsonNode json) {
        QuestionType type = QuestionType.parse(json.path("type").asText())
                .orElseThrow(() -> new IllegalArgumentException("a stored head of no known type"));
        var classes = new ArrayList<String>();
        json.path("classes").forEach(c -> classes.add(c.asText()));
        JsonNode facts = json.path("facts");
        int dimension = facts.path("dimension").asInt();
        var parts = new ArrayList<Softmax>();
        for (JsonNode layer : json.path("parts")) {
            ByteBuffer bytes = ByteBuffer.wrap(
                            Base64.getDecoder().decode(layer.path("weights").asText()))
                    .order(ByteOrder.LITTLE_ENDIAN);
            float[] weights = new float[bytes.remaining() / Float.BYTES];
            bytes.asFloatBuffer().get(weights);
            parts.add(new Softmax(
                    layer.path("classes").asInt(),
                    dimension,
                    weights,
                    layer.path("temperature").asDouble(),
                    layer.path("regularisation").asDouble(),
                    layer.path("cv_accuracy").asDouble(),
                    layer.path("cv_log_loss").asDouble()));
        }
        var counts = new LinkedHashMap<String, Integer>();
        facts.path("label_counts")
                .properties()
                .forEach(e -> counts.put(e.getKey(), e.getValue().asInt()));
        return new Head(
                type,
                classes,
                parts,
                new Facts(
                        facts.path("model").asText(),
                        dimension,
                        facts.path("labels").asInt(),
                        counts,
                        facts.path("cv_accuracy").asDouble(),
                        facts.path("cv_log_loss").asDouble(),
                        facts.path("folds").asInt(),
                        Instant.ofEpochSecond(facts.path("fitted_at").asLong())));
    }

    /** Floats as little-endian float32 in base64: compact, and the same on every platform. */
    public static String encode(float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        return Base64.getEncoder().encodeToString(bytes.array());
    }

    public static float[] decode(String text) {
        ByteBuffer bytes = ByteBuffer.wrap(Base64.getDecoder().decode(text)).order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[bytes.remaining() / Float.BYTES];
        bytes.asFloatBuffer().get(values);
        return values;
    }
}
