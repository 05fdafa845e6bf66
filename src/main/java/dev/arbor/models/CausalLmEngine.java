package dev.arbor.models;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import dev.arbor.platform.http.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Decisions from a generative language model (engine {@code causal-lm}: Llama, Mistral, Qwen2, Gemma, GPT-2 and the
 * other families Jlama reads from a Hugging Face folder of safetensors): each option is scored by the model's own
 * log-probability of answering with it after the situation and the question, averaged over its tokens so that long
 * labels are not punished for their length; a softmax over the options (with the model's temperature) gives their
 * probabilities. Read, not sampled: the same input gets the same answer (up to the rounding of the model's parallel
 * sums).
 */
final class CausalLmEngine implements Engine {
    static final String CONFIG = "config.json";
    static final String TOKENIZER = "tokenizer.json";
    static final String WEIGHTS = "model.safetensors";

    /** The most positions one pass of the model takes. */
    private static final int BATCH = 256;
    /** Positions at the end of the context Jlama cannot use (its last few fail): kept free. */
    private static final int CONTEXT_MARGIN = 8;

    private final AbstractModel model;
    private final KvBufferCache cache;
    private final double temperature;

    private CausalLmEngine(AbstractModel model, double temperature) {
        this.model = model;
        this.cache = new KvBufferCache(model);
        this.temperature = temperature;
    }

    /** Whether a folder holds a generative model: its files, and a config naming a *ForCausalLM or *LMHeadModel. */
    static boolean generates(Path folder) {
        if (!EngineKind.CAUSAL_LM.foundIn(folder)) {
            return false;
        }
        try {
            for (var architecture :
                    Json.read(Files.readString(folder.resolve(CONFIG))).path("architectures")) {
                String name = architecture.asText();
                if (name.endsWith("ForCausalLM") || name.endsWith("LMHeadModel")) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    static CausalLmEngine load(Map<String, String> options) {
        Path folder = Path.of(options.get("path"));
        AbstractModel model = ModelSupport.loadModel(folder.toFile(), DType.F32, DType.F32);
        return new CausalLmEngine(model, Double.parseDouble(options.getOrDefault("temperature", "1")));
    }

    @Override
    public Scoring.Answer score(Scoring.Request request) {
        var probabilities = new LinkedHashMap<String, List<Double>>();
        int read = 0;
        for (Scoring.Question question : request.questions()) {
            int[][] continuations = question.options().stream()
                    .map(option -> tokens(" " + option.label()))
                    .toArray(int[][]::new);
            int longest =
                    Arrays.stream(continuations).mapToInt(c -> c.length).max().orElse(0);
            int[] prefix =
                    prefix(request.state(), question, model.getConfig().contextLength - CONTEXT_MARGIN - longest);
            read = Math.max(read, prefix.length);
            probabilities.put(
                    question.key(), EmbeddingEngine.softmax(meanLogProbabilities(prefix, continuations), temperature));
        }
        return new Scoring.Answer(probabilities, read);
    }

    /**
     * The beginning of the model's text: the situation, the question and its options, then "Answer:". The situation
     * is cut from its end when it would not fit the model's context with the longest option after it.
     */
    private int[] prefix(String state, Scoring.Question question, int room) {
        String options = question.options().stream().map(Scoring.Option::label).collect(Collectors.joining("; "));
        int[] tail = tokens("\n\nQuestion: " + question.instructions() + "\nOptions: " + options + "\nAnswer:");
        int[] situation = tokens(state);
        int kept = Math.max(0, Math.min(situation.length, room - 1 - tail.length));
        int[] prefix = new int[1 + kept + tail.length];
        prefix[0] = model.getConfig().bosToken;
        System.arraycopy(situation, 0, prefix, 1, kept);
        System.arraycopy(tail, 0, prefix, 1 + kept, tail.length);
        return prefix;
    }

    /**
     * The mean log-probability of each continuation's tokens, each given everything before it. The prefix goes through
     * the model once: every continuation then starts from its cache, at the prefix's last position, and overwrites
     * what the one before it left beyond (a position attends only to those before it, so nothing of an earlier
     * option is read). Text goes through in passes of at most {@link #BATCH} positions (Jlama's one pass holds no
     * more).
     */
    double[] meanLogProbabilities(int[] prefix, int[][] continuations) {
        double[] scores = new double[continuations.length];
        int shared = prefix.length - 1;
        try (KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer()) {
            for (int start = 0; start < shared; start += BATCH) {
                model.batchForward(Arrays.copyOfRange(prefix, start, Math.min(shared, start + BATCH)), start, kv);
            }
            for (int i = 0; i < continuations.length; i++) {
                int[] continuation = continuations[i];
                // the prefix's last token and the continuation but its last: position shared + j predicts token j
                int[] fed = new int[continuation.length];
                if (fed.length > 0) {
                    fed[0] = prefix[shared];
                    System.arraycopy(continuation, 0, fed, 1, continuation.length - 1);
                }
                double total = 0;
                for (int start = 0; start < fed.length; start += BATCH) {
                    int end = Math.min(fed.length, start + BATCH);
                    AbstractTensor<?, ?> hidden =
                            model.batchForward(Arrays.copyOfRange(fed, start, end), shared + start, kv);
                    for (int j = start; j < end; j++) {
                        float[] next = model.getLogits(hidden.slice(j - start)); // a distribution, softmaxed
                        total += Math.log(Math.max(next[continuation[j]], Float.MIN_VALUE));
                    }
                }
                scores[i] = continuation.length == 0 ? Double.NEGATIVE_INFINITY : total / continuation.length;
            }
        }
        return scores;
    }

    private int[] tokens(String text) {
        return Arrays.stream(model.getTokenizer().encode(text))
                .mapToInt(Math::toIntExact)
                .toArray();
    }
}
