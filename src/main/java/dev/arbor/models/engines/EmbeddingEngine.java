package dev.arbor.models.engines;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * Zero-shot decisions from sentence embeddings: each option is written as "instructions option: description",
 * embedded, and compared with the situation's embedding; a softmax at a low temperature, one per question type fitted
 * for calibration, turns the cosine similarities into probabilities. It reads topics well and degrees (score, number)
 * badly, and says so in its catalog notes.
 *
 * <p>The bundled models are all-MiniLM-L6-v2 and e5-small-v2, both quantized: their ONNX graphs and tokenizers come
 * from jars on the class path (option {@code bundled} names which, MiniLM by default), so they need no download. What
 * each needs around its text and its temperatures are its {@link EmbeddingForm}. Option embeddings are cached, so a
 * repeated question costs one embedding of the situation; the load ends with a warm-up, so the first decisions run
 * compiled code.
 */
public final class EmbeddingEngine implements Engine, Engine.Embedder {
    /** The bundled model a load gets without a {@code path} or a {@code bundled} option. */
    public static final String DEFAULT_BUNDLED = "all-minilm-l6-v2-q";

    public static final String BUNDLED_GRAPH = "/" + DEFAULT_BUNDLED + ".onnx";
    public static final String BUNDLED_TOKENIZER = "/" + DEFAULT_BUNDLED + "-tokenizer.json";
    /** Where a model folder may keep its graph, in the order looked at. */
    static final List<String> GRAPHS = List.of("onnx/model_quantized.onnx", "onnx/model.onnx", "model.onnx");

    static final String TOKENIZER = "tokenizer.json";
    private static final int CACHED_OPTIONS = 20_000;
    private static final int WARM_UP_CALLS = 200;
    /**
     * The softmax temperature per primitive question type, fitted on the FIT half of public labelled text (mail spam,
     * review sentiment, review topics, and the VADER lexicon's words rated by ten people: {@code bench/studio-zeroshot},
     * whose README has the figures): choice at its lowest log loss; yes/no at the lowest temperature whose answers given
     * with certainty 0.9 or more are right at least 92% of the time on every yes/no set; score (which number questions
     * also ask) at the lowest log loss pooled over the graded words and the reviews' sides, which is also above the
     * lowest temperature whose certain answers keep that promise on both. The single 0.013 before (fitted on a dozen
     * topic examples we wrote) made wrong answers come back at 0.9 and more; score at the choice value (0.035) still
     * did for words. Yes/no and multi questions ask {@code noul}, choice and rank {@code choice}, score and number
     * {@code score}. These are MiniLM's, in its catalog entry too; another model has its own there
     * ({@link EmbeddingForm}), and a load may pass one {@code temperature} option for all.
     */
    static final Map<String, Double> DEFAULT_TEMPERATURES = Map.of(
            Scoring.Primitive.CHOICE.wire(), 0.035,
            Scoring.Primitive.NOUL.wire(), 0.0165,
            Scoring.Primitive.SCORE.wire(), 0.05);

    private final OrtEnvironment environment;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final EmbeddingForm form;
    /** Option text to embedding; emptied when full, which a working set of options never reaches. */
    private final Map<String, float[]> optionCache = new ConcurrentHashMap<>();

    private EmbeddingEngine(
            OrtEnvironment environment, OrtSession session, HuggingFaceTokenizer tokenizer, EmbeddingForm form) {
        this.environment = environment;
        this.session = session;
        this.tokenizer = tokenizer;
        this.form = form;
    }

    /**
     * A bundled model (option {@code bundled}, MiniLM by default), or with option {@code path} a sentence-embedding
     * model in a folder laid out as a model hub has it: an ONNX graph ({@link #GRAPHS}, the first found) and
     * {@code tokenizer.json}; the other options are its {@link EmbeddingForm}.
     */
    static EmbeddingEngine load(Map<String, String> options) throws OrtException, IOException {
        EmbeddingForm form = EmbeddingForm.of(options);
        Optional<Path> folder = Optional.ofNullable(options.get("path")).map(Path::of);
        String bundled = options.getOrDefault("bundled", DEFAULT_BUNDLED);
        String bundledTokenizer = "/" + bundled + "-tokenizer.json";
        byte[] graph = folder.isPresent()
                ? Files.readAllBytes(graph(folder.get())
                        .orElseThrow(() -> new IOException("no ONNX graph in " + folder.get() + " (looked for "
                                + String.join(", ", GRAPHS) + ")")))
                : resource("/" + bundled + ".onnx");
        HuggingFaceTokenizer tokenizer;
        try (InputStream json = folder.isPresent()
                ? Files.newInputStream(folder.get().resolve(TOKENIZER))
                : EmbeddingEngine.class.getResourceAsStream(bundledTokenizer)) {
            if (json == null) {
                throw new IOException("the bundled tokenizer " + bundledTokenizer + " is missing");
            }
            tokenizer = Onnx.tokenizer(json, form.maxTokens());
        }
        OrtEnvironment environment = OrtEnvironment.getEnvironment();
        OrtSession session = environment.createSession(graph, Onnx.sessionOptions());
        var engine = new EmbeddingEngine(environment, session, tokenizer, form);
        engine.warmUp();
        return engine;
    }

    /** The graph a model folder holds, if it holds one. */
    static Optional<Path> graph(Path folder) {
        return GRAPHS.stream().map(folder::resolve).filter(Files::isRegularFile).findFirst();
    }

    /** Runs the embedding path until the JIT has compiled it, so that the first decisions are not the slow ones. */
    private void warmUp() throws OrtException {
        var question = new Scoring.Question(
                "warm_up",
                Scoring.Primitive.CHOICE.wire(),
                "Which fits?",
                List.of(new Scoring.Option("a", "a"), new Scoring.Option("b", "b")));
        for (int i = 0; i < WARM_UP_CALLS; i++) {
            score(new Scoring.Request(
                    "A short message to warm the model up, number " + i + ".", List.of(), List.of(question)));
        }
        optionCache.clear();
    }

    /** The session and the tokenizer are safe to share, so answers need not wait for each other. */
    @Override
    public boolean concurrent() {
        return true;
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) throws OrtException {
        Encoding encoding = tokenizer.encode(form.text(request.state()));
        float[] state = embed(encoding);
        var probabilities = new LinkedHashMap<String, List<Double>>();
        for (Scoring.Question question : request.questions()) {
            double[] similarities = new double[question.options().size()];
            for (int i = 0; i < similarities.length; i++) {
                similarities[i] = dot(state, option(question, question.options().get(i)));
            }
            probabilities.put(question.key(), softmax(similarities, form.temperature(question.type())));
        }
        return new Scoring.Answer(probabilities, encoding.getIds().length);
    }

    /**
     * Each input's embedding as given, without the form's prefix (pooled as the form says, unit length), cut at the
     * form's tokens.
     */
    @Override
    public ReplicaSet.Embeddings embed(List<String> inputs, BooleanSupplier givenUp)
            throws OrtException, TimeoutException {
        var vectors = new ArrayList<float[]>(inputs.size());
        int tokens = 0;
        for (String input : inputs) {
            if (givenUp.getAsBoolean()) {
                throw new TimeoutException(
                        "the caller gave up after " + vectors.size() + " of " + inputs.size() + " inputs");
            }
            Encoding encoding = tokenizer.encode(input);
            tokens += encoding.getIds().length;
            vectors.add(embed(encoding));
        }
        return new ReplicaSet.Embeddings(vectors, tokens);
    }

    private float[] option(Scoring.Question question, Scoring.Option option) throws OrtException {
        String text = form.text(optionText(question, option));
        float[] cached = optionCache.get(text);
        if (cached == null) {
            cached = embed(tokenizer.encode(text));
            if (optionCache.size() >= CACHED_OPTIONS) {
                optionCache.clear();
            }
            optionCache.put(text, cached);
        }
        return cached;
    }

    /**
     * The text an option is judged by: "instructions label", then ": description" where the option has one. Yes/no
     * sides without a description stay bare ("Is this mail spam? yes"): sides written from the question ("yes, this is
     * clearly the case") were measured on public labelled text and answered worse than chance (bench/studio-zeroshot).
     */
    static String optionText(Scoring.Question question, Scoring.Option option) {
        String description = option.description();
        String text = question.instructions() + " " + option.label();
        return description == null || description.isBlank() ? text : text + ": " + description;
    }

    private float[] embed(Encoding encoding) throws OrtException {
        long[] ids = encoding.getIds();
        long[] mask = encoding.getAttentionMask();
        long[] types = encoding.getTypeIds();
        try (OnnxTensor inputIds = OnnxTensor.createTensor(environment, new long[][] {ids});
                OnnxTensor attention = OnnxTensor.createTensor(environment, new long[][] {mask});
                OnnxTensor typeIds = OnnxTensor.createTensor(environment, new long[][] {types});
                OrtSession.Result result = session.run(inputs(inputIds, attention, typeIds))) {
            float[][] hidden = ((float[][][]) result.get(0).getValue())[0];
            return normalised(
                    switch (form.pooling()) {
                        case MEAN -> meanPool(hidden, mask);
                        case CLS -> hidden[0].clone();
                    });
        }
    }

    /** The inputs the graph takes: some graphs have no {@code token_type_ids}. */
    private Map<String, OnnxTensor> inputs(OnnxTensor inputIds, OnnxTensor attention, OnnxTensor typeIds) {
        var inputs = new LinkedHashMap<String, OnnxTensor>();
        inputs.put("input_ids", inputIds);
        inputs.put("attention_mask", attention);
        if (session.getInputNames().contains("token_type_ids")) {
            inputs.put("token_type_ids", typeIds);
        }
        return inputs;
    }

    private static float[] meanPool(float[][] hidden, long[] mask) {
        float[] pooled = new float[hidden[0].length];
        int count = 0;
        for (int token = 0; token < hidden.length; token++) {
            if (mask[token] == 0) {
                continue;
            }
            count++;
            for (int d = 0; d < pooled.length; d++) {
                pooled[d] += hidden[token][d];
            }
        }
        for (int d = 0; d < pooled.length; d++) {
            pooled[d] /= Math.max(1, count);
        }
        return pooled;
    }

    private static float[] normalised(float[] vector) {
        double norm = 0;
        for (float v : vector) {
            norm += v * v;
        }
        norm = Math.sqrt(norm);
        for (int d = 0; d < vector.length; d++) {
            vector[d] /= (float) Math.max(norm, 1e-12);
        }
        return vector;
    }

    private static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int d = 0; d < a.length; d++) {
            sum += a[d] * b[d];
        }
        return sum;
    }

    static List<Double> softmax(double[] scores, double temperature) {
        double max = Double.NEGATIVE_INFINITY;
        for (double score : scores) {
            max = Math.max(max, score);
        }
        double[] exp = new double[scores.length];
        double total = 0;
        for (int i = 0; i < scores.length; i++) {
            exp[i] = Math.exp((scores[i] - max) / temperature);
            total += exp[i];
        }
        var probabilities = new ArrayList<Double>(scores.length);
        for (double e : exp) {
            probabilities.add(e / total);
        }
        return probabilities;
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = EmbeddingEngine.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("the bundled model file " + name + " is missing");
            }
            return in.readAllBytes();
        }
    }
}
