package dev.arbor.models.engines;

import com.github.tjake.jlama.model.AbstractModel;
import com.github.tjake.jlama.model.ModelSupport;
import com.github.tjake.jlama.safetensors.DType;
import com.github.tjake.jlama.tensor.AbstractTensor;
import com.github.tjake.jlama.tensor.KvBufferCache;
import dev.arbor.platform.json.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Decisions from a generative language model (engine {@code causal-lm}: Llama, Mistral, Qwen2, Gemma, GPT-2 and the
 * other families Jlama reads from a Hugging Face folder of safetensors): each option is scored by the model's own
 * log-probability of answering with it after the situation and the question, averaged over its tokens so that long
 * labels are not punished for their length; a softmax over the options (with the model's temperature) gives their
 * probabilities. Read, not sampled: the same input gets the same answer (up to the rounding of the model's parallel
 * sums).
 *
 * <p>It also writes ({@link #generate}): a conversation goes through the model's chat template when its tokenizer
 * config has one, else as a plain transcript ("role: content" lines, then "assistant:"), and tokens are drawn one by
 * one from the model's distribution, sharpened by the temperature (0: always the likeliest), cut to the top-p
 * nucleus, from a random source seeded with the request's seed when it gives one. Jlama 0.8.4's distributions
 * vary a little between passes over the same input (the first pass of a new length most), so a seed narrows the
 * draws rather than fixing the text.
 */
public final class CausalLmEngine implements Engine, Engine.Generator {
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
    public static boolean generates(Path folder) {
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

    /**
     * Writes the model's answer to a conversation. The text streams through {@code deltas} as it comes, held back
     * only where it may still change: up to a stop sequence's length before its end (a stop string is not shown),
     * and a character whose bytes are not all written yet. It ends at an end-of-sequence token or a stop string
     * ({@code stop}), or after {@code max_tokens} or at the end of the model's context ({@code length}).
     */
    @Override
    public ReplicaSet.Generation generate(ReplicaSet.GenerationRequest request, Consumer<String> deltas) {
        if (request.messages().isEmpty()) {
            throw new IllegalArgumentException("there are no messages");
        }
        if (request.maxTokens() < 1) {
            throw new IllegalArgumentException("max_tokens must be at least 1");
        }
        if (request.temperature() < 0 || !(request.topP() > 0 && request.topP() <= 1)) {
            throw new IllegalArgumentException("temperature must be at least 0 and top_p within (0, 1]");
        }
        int[] prompt = chatPrompt(request.messages());
        int room = model.getConfig().contextLength - CONTEXT_MARGIN - prompt.length;
        if (room < 1) {
            throw new IllegalArgumentException("the conversation takes " + prompt.length + " tokens; the model reads "
                    + (model.getConfig().contextLength - CONTEXT_MARGIN) + " at most, its answer included");
        }
        int limit = Math.min(request.maxTokens(), room);
        Random random = request.seed().map(Random::new).orElseGet(Random::new);
        int holdBack = request.stop().stream().mapToInt(String::length).max().orElse(1) - 1;
        var generated = new ArrayList<Long>();
        var sent = new StringBuilder();
        String text = "";
        String finish = "length";
        try (KvBufferCache.KvBuffer kv = cache.getEphemeralKvBuffer()) {
            AbstractTensor<?, ?> hidden =
                    model.batchForward(Arrays.copyOfRange(prompt, 0, Math.min(BATCH, prompt.length)), 0, kv);
            for (int start = BATCH; start < prompt.length; start += BATCH) {
                hidden = model.batchForward(
                        Arrays.copyOfRange(prompt, start, Math.min(prompt.length, start + BATCH)), start, kv);
            }
            float[] next = model.getLogits(hidden.slice(hidden.shape().first() - 1));
            while (true) {
                int token = pick(next, request.temperature(), request.topP(), random);
                if (model.getConfig().eosTokens.contains(token)) {
                    finish = "stop";
                    break;
                }
                generated.add((long) token);
                text = decode(generated);
                int stopAt = firstStop(text, request.stop());
                if (stopAt >= 0) {
                    text = text.substring(0, stopAt);
                    finish = "stop";
                    break;
                }
                send(text, settled(text, holdBack), sent, deltas);
                if (generated.size() >= limit) {
                    break;
                }
                int position = prompt.length + generated.size() - 1;
                next = model.getLogits(model.forward(token, position, kv, Optional.empty()));
            }
        }
        send(text, text.length(), sent, deltas); // the end: nothing can change the rest now
        return new ReplicaSet.Generation(sent.toString(), finish, prompt.length, generated.size());
    }

    /** Sends the text from what was sent up to {@code end}, unless an earlier part changed (then it waits). */
    private static void send(String text, int end, StringBuilder sent, Consumer<String> deltas) {
        if (end > sent.length() && text.startsWith(sent.toString())) {
            String delta = text.substring(sent.length(), end);
            sent.append(delta);
            deltas.accept(delta);
        }
    }

    /** The tokens of a conversation, ready for the answer: through the chat template when the model has one. */
    private int[] chatPrompt(List<ReplicaSet.Message> messages) {
        for (ReplicaSet.Message message : messages) {
            if (!List.of("system", "user", "assistant").contains(message.role())) {
                throw new IllegalArgumentException(
                        "a message has role " + message.role() + "; the roles are system, user and assistant");
            }
        }
        var template = model.promptSupport();
        if (template.isPresent()) {
            var builder = template.get().builder().addGenerationPrompt(true);
            for (ReplicaSet.Message message : messages) {
                switch (message.role()) {
                    case "system" -> builder.addSystemMessage(message.content());
                    case "assistant" -> builder.addAssistantMessage(message.content());
                    default -> builder.addUserMessage(message.content());
                }
            }
            int[] tokens = tokens(builder.build().getPrompt());
            return tokens.length > 0 && tokens[0] == model.getConfig().bosToken ? tokens : withBos(tokens);
        }
        var transcript = new StringBuilder();
        for (ReplicaSet.Message message : messages) {
            transcript
                    .append(message.role())
                    .append(": ")
                    .append(message.content())
                    .append('\n');
        }
        return withBos(tokens(transcript.append("assistant:").toString()));
    }

    private int[] withBos(int[] tokens) {
        int[] all = new int[tokens.length + 1];
        all[0] = model.getConfig().bosToken;
        System.arraycopy(tokens, 0, all, 1, tokens.length);
        return all;
    }

    /** The text of the tokens written so far, special tokens left out. */
    private String decode(List<Long> generated) {
        long[] ordinary = generated.stream()
                .mapToLong(Long::longValue)
                .filter(token -> !model.getTokenizer().getModel().isSpecialToken(token))
                .toArray();
        return ordinary.length == 0 ? "" : model.getTokenizer().decode(ordinary);
    }

    /** How much of the text may be sent: all but what a stop string or an unfinished character may still change. */
    private static int settled(String text, int holdBack) {
        int end = text.length();
        while (end > 0 && text.charAt(end - 1) == '\uFFFD') {
            end--;
        }
        return Math.max(0, Math.min(end, text.length() - holdBack));
    }

    private static int firstStop(String text, List<String> stops) {
        int first = -1;
        for (String stop : stops) {
            int at = stop.isEmpty() ? -1 : text.indexOf(stop);
            if (at >= 0 && (first < 0 || at < first)) {
                first = at;
            }
        }
        return first;
    }

    /**
     * The next token from a distribution (the model's, softmaxed): the likeliest at temperature 0; otherwise drawn
     * after sharpening by the temperature and keeping the likeliest tokens whose probabilities add up to top-p.
     */
    static int pick(float[] distribution, double temperature, double topP, Random random) {
        if (temperature == 0) {
            int best = 0;
            for (int i = 1; i < distribution.length; i++) {
                if (distribution[i] > distribution[best]) {
                    best = i;
                }
            }
            return best;
        }
        double[] weights = new double[distribution.length];
        double highest = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < weights.length; i++) {
            weights[i] = Math.log(Math.max(distribution[i], Float.MIN_VALUE)) / temperature;
            highest = Math.max(highest, weights[i]);
        }
        double total = 0;
        for (int i = 0; i < weights.length; i++) {
            weights[i] = Math.exp(weights[i] - highest);
            total += weights[i];
        }
        Integer[] order = new Integer[weights.length];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> Double.compare(weights[b], weights[a]));
        int kept = 0;
        double nucleus = 0;
        while (kept < order.length && (kept == 0 || nucleus < topP * total)) {
            nucleus += weights[order[kept++]];
        }
        double draw = random.nextDouble() * nucleus;
        for (int i = 0; i < kept; i++) {
            draw -= weights[order[i]];
            if (draw < 0) {
                return order[i];
            }
        }
        return order[kept - 1];
    }
}
