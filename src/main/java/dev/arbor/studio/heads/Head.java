package dev.arbor.studio.heads;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.platform.json.Json;
import dev.arbor.studio.definitions.QuestionType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
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
        var layers = parts.stream()
                .map(part -> new StoredLayer(
                        part.classes(),
                        part.temperature(),
                        part.regularisation(),
                        part.cvAccuracy(),
                        part.cvLogLoss(),
                        encode(part.weights())))
                .toList();
        return Json.mapper().valueToTree(new StoredHead(type.wire(), classes, layers, shownFacts()));
    }

    /** The training facts as the API shows them. */
    public ObjectNode factsJson() {
        return Json.mapper().valueToTree(shownFacts());
    }

    private ShownFacts shownFacts() {
        return new ShownFacts(
                facts.model(),
                facts.dimension(),
                facts.labels(),
                facts.counts(),
                facts.cvAccuracy(),
                facts.cvLogLoss(),
                facts.folds(),
                parts.stream().map(Softmax::regularisation).toList(),
                facts.fittedAt().getEpochSecond());
    }

    /** A head as {@link #json()} stored it. */
    public static Head read(JsonNode json) {
        StoredHead stored;
        try {
            stored = Json.mapper().treeToValue(json, StoredHead.class);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a stored head that does not read: " + e.getOriginalMessage(), e);
        }
        QuestionType type = QuestionType.parse(stored.type())
                .orElseThrow(() -> new IllegalArgumentException("a stored head of no known type"));
        ShownFacts facts = stored.facts();
        var parts = stored.parts().stream()
                .map(layer -> new Softmax(
                        layer.classes(),
                        facts.dimension(),
                        decode(layer.weights()),
                        layer.temperature(),
                        layer.regularisation(),
                        layer.cvAccuracy(),
                        layer.cvLogLoss()))
                .toList();
        return new Head(
                type,
                stored.classes(),
                parts,
                new Facts(
                        facts.model(),
                        facts.dimension(),
                        facts.labels(),
                        facts.labelCounts(),
                        facts.cvAccuracy(),
                        facts.cvLogLoss(),
                        facts.folds(),
                        Instant.ofEpochSecond(facts.fittedAt())));
    }

    /** A head as stored: Jackson writes and reads it. */
    private record StoredHead(String type, List<String> classes, List<StoredLayer> parts, ShownFacts facts) {}

    /** One layer as stored, its weights in base64 ({@link #encode}). */
    private record StoredLayer(
            int classes,
            double temperature,
            double regularisation,
            @JsonProperty("cv_accuracy") double cvAccuracy,
            @JsonProperty("cv_log_loss") double cvLogLoss,
            String weights) {}

    /** The training facts as stored and as the API shows them; {@code regularisation} per layer. */
    private record ShownFacts(
            String model,
            int dimension,
            int labels,
            @JsonProperty("label_counts") Map<String, Integer> labelCounts,
            @JsonProperty("cv_accuracy") double cvAccuracy,
            @JsonProperty("cv_log_loss") double cvLogLoss,
            int folds,
            List<Double> regularisation,
            @JsonProperty("fitted_at") long fittedAt) {}

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
