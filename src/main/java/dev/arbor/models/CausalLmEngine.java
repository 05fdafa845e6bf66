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
            for (var architecture : Json.read(Files.readString(folder.resolve(CONFIG))).path("architectures")) {
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
            int[][] continuations = question.options().stream().map(option -> tokens(" " + option.label()))
                    .toArray(int[][]::new);
            int longest = Arrays.stream(continuations).mapToInt(c -> c.length).max().orElse(0);
            int[] prefix = prefix(request.state(), question, model.getConfig().contextLength - CONTEXT_MARGIN
                    - longest);
            read = Math.max(read, prefix.length);
            double[] scores = new double[continuations.length];
            for (int i = 0; i < continuations.length; i++) {
                scores[i] = meanLogProbability(prefix, continuations[i]);
            }
            probabilities.put(question.key(), EmbeddingEngine.softmax(scores, temperature));
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
     * The mean log-probability of the continuation's tokens, each given everything before it. The text goes through
     * the model in batches of at most {@link #BATCH} positions (Jlama's one pass holds no more).
     */
    private double meanLogProbability(int[] prefix, int[] continuation) {
        if (continuation.length == 0) {
            return Double.NEGATIVE_INFINITY;
        }
        int[] all = Arrays.copyOf(prefix, prefix.length + continuation.length);
        System.arraycopy(continuation, 0, all, prefix.length, continuation.length);
        double total = 0;
        try (KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer()) {
            for (int start = 0; start < all.length - 1; start += BATCH) {
                int end = Math.min(all.length - 1, start + BATCH);
                AbstractTensor<?, ?> hidden = model.batchForward(Arrays.copyOfRange(all, start, end), start, kv);
                // position p predicts the token at p + 1; the continuation's tokens are predicted from prefix - 1 on
                for (int position = Math.max(start, prefix.length - 1); position < end; position++) {
                    float[] next = model.getLogits(hidden.slice(position - start)); // a distribution, softmaxed
                    total += Math.log(Math.max(next[all[position + 1]], Float.MIN_VALUE));
                }
            }
        }
        return total / continuation.length;
    }

    private int[] tokens(String text) {
        return Arrays.stream(model.getTokenizer().encode(text)).mapToInt(Math::toIntExact).toArray();
    }
}
