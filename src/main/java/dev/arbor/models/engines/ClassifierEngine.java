package dev.arbor.models.engines;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Decisions from a sequence-classification model exported to ONNX (engine {@code onnx-classifier}), read three ways
 * from its {@code config.json}:
 *
 * <ul>
 *   <li>natural-language inference (a label named entailment): each option, written as the embedding engine writes
 *       it, is a hypothesis about the situation; the options' entailment logits, through a softmax, are their
 *       probabilities (zero-shot classification);</li>
 *   <li>cross-encoder (one output): each option is scored against the situation by the model's relevance logit;</li>
 *   <li>labels (any other head): the situation alone is classified, and a question whose options are exactly the
 *       model's labels takes their probabilities; other questions are refused (the model rejects the input).</li>
 * </ul>
 *
 * The options of a question go through the model as one batch.
 */
public final class ClassifierEngine implements Engine {
    static final String CONFIG = "config.json";
    private static final int MAX_TOKENS = 512;

    /** How the model's head is read. */
    enum Head {
        ENTAILMENT,
        RELEVANCE,
        LABELS
    }

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final Head head;
    private final List<String> labels;
    private final int entailment;
    private final double temperature;
    private final Set<String> inputs;

    private ClassifierEngine(
            OrtEnvironment environment,
            OrtSession session,
            HuggingFaceTokenizer tokenizer,
            List<String> labels,
            double temperature) {
        this.environment = environment;
        this.session = session;
        this.tokenizer = tokenizer;
        this.labels = labels;
        this.entailment = labels.indexOf("entailment");
        this.head = entailment >= 0 ? Head.ENTAILMENT : labels.size() == 1 ? Head.RELEVANCE : Head.LABELS;
        this.temperature = temperature;
        this.inputs = session.getInputNames();
    }

    /**
     * Whether a folder holds a sequence classifier (its {@code config.json} names a *ForSequenceClassification
     * architecture) rather than an encoder whose embeddings are compared.
     */
    public static boolean classifies(Path folder) {
        Path config = folder.resolve(CONFIG);
        if (!EngineKind.ONNX_CLASSIFIER.foundIn(folder)) {
            return false;
        }
        try {
            var architectures =
                    dev.arbor.platform.json.Json.read(Files.readString(config)).path("architectures");
            for (var architecture : architectures) {
                if (architecture.asText().endsWith("ForSequenceClassification")) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false; // an unreadable config: AddModel and the load say what is wrong with the folder
        }
    }

    /** Loads the model in the folder of option {@code path}: an ONNX graph, {@code tokenizer.json}, {@code config.json}. */
    static ClassifierEngine load(Map<String, String> options) throws OrtException, IOException {
        Path folder = Path.of(Optional.ofNullable(options.get("path"))
                .orElseThrow(() -> new IOException("an onnx-classifier model needs the folder of its files")));
        Path graph = EmbeddingEngine.graph(folder)
                .orElseThrow(() -> new IOException("no ONNX graph in " + folder + " (looked for "
                        + String.join(", ", EmbeddingEngine.GRAPHS) + ")"));
        List<String> labels = labels(folder.resolve(CONFIG));
        HuggingFaceTokenizer tokenizer;
        try (var json = Files.newInputStream(folder.resolve(EmbeddingEngine.TOKENIZER))) {
            tokenizer = Onnx.tokenizer(json, MAX_TOKENS);
        }
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession session = environment.createSession(graph.toString(), Onnx.sessionOptions());
        double temperature = Double.parseDouble(options.getOrDefault("temperature", "1"));
        return new ClassifierEngine(environment, session, tokenizer, labels, temperature);
    }

    /** The model's labels in output order, lower case, from {@code id2label} (one unnamed output without it). */
    static List<String> labels(Path config) throws IOException {
        JsonNode id2label = Json.read(Files.readString(config)).path("id2label");
        if (!id2label.isObject() || id2label.isEmpty()) {
            return List.of("score");
        }
        var labels = new ArrayList<String>();
        for (int i = 0; i < id2label.size(); i++) {
            JsonNode label = id2label.get(Integer.toString(i));
            if (label == null || !label.isTextual()) {
                throw new IOException(config + " has no label " + i + " in id2label");
            }
            labels.add(label.textValue().toLowerCase(Locale.ROOT));
        }
        return List.copyOf(labels);
    }

    Head head() {
        return head;
    }

    @Override
    public boolean concurrent() {
        return true;
    }

    /**
     * An option as the hypothesis a pair model reads: the embedding engine's text, except that a bare "yes" or "no"
     * is no hypothesis, so yes/no sides without a description get one written from the question.
     */
    static String hypothesis(Scoring.Question question, Scoring.Option option) {
        String description = option.description();
        if (question.type().equals(Scoring.Primitive.NOUL.wire()) && (description == null || description.isBlank())) {
            return EmbeddingEngine.optionText(
                    question,
                    new Scoring.Option(
                            option.key(),
                            option.label(),
                            option.key().equals("true")
                                    ? "yes, this is clearly the case"
                                    : "no, nothing here suggests this"));
        }
        return EmbeddingEngine.optionText(question, option);
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) throws OrtException {
        var probabilities = new LinkedHashMap<String, List<Double>>();
        int tokens = 0;
        Optional<float[]> situation = Optional.empty();
        for (Scoring.Question question : request.questions()) {
            double[] scores;
            if (head == Head.LABELS) {
                if (situation.isEmpty()) {
                    Encoding encoding = tokenizer.encode(request.state());
                    tokens += encoding.getIds().length;
                    situation = Optional.of(run(List.of(encoding))[0]);
                }
                scores = labelScores(question, situation.get());
            } else {
                var pairs = new ArrayList<Encoding>();
                for (Scoring.Option option : question.options()) {
                    pairs.add(tokenizer.encode(request.state(), hypothesis(question, option)));
                }
                tokens = Math.max(tokens, pairs.getFirst().getIds().length);
                float[][] logits = run(pairs);
                scores = new double[logits.length];
                for (int i = 0; i < logits.length; i++) {
                    scores[i] = head == Head.ENTAILMENT ? logits[i][entailment] : logits[i][0];
                }
            }
            probabilities.put(question.key(), EmbeddingEngine.softmax(scores, temperature));
        }
        return new Scoring.Answer(probabilities, tokens);
    }

    /** The logits of the model's own labels for a question whose options are those labels, in the options' order. */
    private double[] labelScores(Scoring.Question question, float[] logits) {
        double[] scores = new double[question.options().size()];
        for (int i = 0; i < scores.length; i++) {
            Scoring.Option option = question.options().get(i);
            int label = labels.indexOf(option.label().toLowerCase(Locale.ROOT));
            if (label < 0) {
                label = labels.indexOf(option.key().toLowerCase(Locale.ROOT));
            }
            if (label < 0) {
                throw new IllegalArgumentException("question '" + question.key() + "' has option '" + option.key()
                        + "', which is not a label of this classifier (" + String.join(", ", labels) + ")");
            }
            scores[i] = logits[label];
        }
        return scores;
    }

    /** Runs encodings as one batch, padded to the longest; returns each one's logits. */
    private float[][] run(List<Encoding> encodings) throws OrtException {
        int length = encodings.stream().mapToInt(e -> e.getIds().length).max().orElse(0);
        long[][] ids = new long[encodings.size()][length];
        long[][] mask = new long[encodings.size()][length];
        long[][] types = new long[encodings.size()][length];
        for (int i = 0; i < encodings.size(); i++) {
            Encoding encoding = encodings.get(i);
            System.arraycopy(encoding.getIds(), 0, ids[i], 0, encoding.getIds().length);
            System.arraycopy(encoding.getAttentionMask(), 0, mask[i], 0, encoding.getAttentionMask().length);
            System.arraycopy(encoding.getTypeIds(), 0, types[i], 0, encoding.getTypeIds().length);
        }
        var feeds = new LinkedHashMap<String, OnnxTensor>();
        try {
            feeds.put("input_ids", OnnxTensor.createTensor(environment, ids));
            feeds.put("attention_mask", OnnxTensor.createTensor(environment, mask));
            if (inputs.contains("token_type_ids")) {
                feeds.put("token_type_ids", OnnxTensor.createTensor(environment, types));
            }
            try (OrtSession.Result result = session.run(feeds)) {
                return (float[][]) result.get(0).getValue();
            }
        } finally {
            feeds.values().forEach(OnnxTensor::close);
        }
    }
}
