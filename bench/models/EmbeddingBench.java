import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.arbor.models.Models;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.ModelRuntime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The bundled embedding model, two ways in one run: the raw ONNX session in this process (the limit: one state
 * embedding per decision, option embeddings cached as the engine caches them), and a decision through Arbor's worker
 * process (the same work plus the round trip over its Unix socket and JSON). Run with the Arbor jar on the class path:
 * java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar bench/models/EmbeddingBench.java [seconds a turn]
 * [warm-up seconds]
 */
public class EmbeddingBench {
    /** Turns of raw and worker calls per row: a shared machine's slow moments then fall on both. */
    static final int ROUNDS = 4;

    static final String[] STATES = {
        "I was charged twice for my subscription this month and need one of the payments refunded.",
        "The dashboard shows a 500 error whenever I open the reports page since this morning.",
        "We are a 400-person company interested in the enterprise plan. Can we get a quote and a demo?",
        "I can't log in: the password reset email never arrives and my account seems locked."
    };

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int warmSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        Raw raw = new Raw();
        Path data = Files.createTempDirectory("arbor-bench-");
        try (var runtime =
                new ModelRuntime(new Models(false), data, ModelRuntime.Settings.DEFAULT, new SimpleMeterRegistry())) {
            runtime.start();
            System.out.println("| options | callers | raw decisions/s | raw p50 ms | raw p99 ms | arbor decisions/s"
                    + " | arbor p50 ms | arbor p99 ms | worker overhead (p50, share of raw p50)"
                    + " | arbor/raw decisions/s |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|");
            for (int options : new int[] {3, 20}) {
                Scoring.Question question = question(options);
                raw.cacheOptions(question);
                for (int callers : new int[] {1, 8}) {
                    Load.Result[] both = Load.alternate(
                            callers,
                            seconds,
                            ROUNDS,
                            warmSeconds,
                            i -> raw.decide(STATES[i % STATES.length], question),
                            i -> runtime.score(
                                    "minilm-decider",
                                    new Scoring.Request(STATES[i % STATES.length], List.of(), List.of(question))));
                    Load.Result r = both[0];
                    Load.Result a = both[1];
                    // with more callers than cores the raw p50 leaves out the wait for a core (a call holds its
                    // thread through the native session), while a worker's callers wait in its queue: compare the
                    // rates there
                    String overhead = callers == 1 ? "%.0f%%".formatted(100 * (a.p50() - r.p50()) / r.p50()) : "—";
                    System.out.printf(
                            "| %d | %d | %.0f | %.2f | %.2f | %.0f | %.2f | %.2f | %s | %.2f |%n",
                            options,
                            callers,
                            r.perSecond(),
                            r.p50(),
                            r.p99(),
                            a.perSecond(),
                            a.p50(),
                            a.p99(),
                            overhead,
                            a.perSecond() / r.perSecond());
                }
            }
        }
    }

    static Scoring.Question question(int options) {
        var list = new ArrayList<Scoring.Option>();
        String[] names = {
            "billing",
            "technical",
            "sales",
            "account",
            "legal",
            "security",
            "shipping",
            "returns",
            "privacy",
            "partnerships",
            "hiring",
            "press",
            "investors",
            "facilities",
            "training",
            "marketing",
            "design",
            "research",
            "procurement",
            "compliance"
        };
        for (int i = 0; i < options; i++) {
            list.add(new Scoring.Option(names[i], names[i], "questions about " + names[i]));
        }
        return new Scoring.Question("team", "choice", "Which team should handle this message?", list);
    }

    /** The limit: tokenizer and ONNX session called directly, option embeddings computed once. */
    static final class Raw {
        final OrtEnvironment env = OrtEnvironment.getEnvironment();
        final OrtSession session;
        final HuggingFaceTokenizer tokenizer;
        float[][] options;

        Raw() throws Exception {
            try (InputStream graph = Raw.class.getResourceAsStream("/all-minilm-l6-v2-q.onnx");
                    InputStream json = Raw.class.getResourceAsStream("/all-minilm-l6-v2-q-tokenizer.json")) {
                var sessionOptions = new OrtSession.SessionOptions();
                sessionOptions.setIntraOpNumThreads(
                        Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
                session = env.createSession(graph.readAllBytes(), sessionOptions);
                tokenizer = HuggingFaceTokenizer.newInstance(
                        json, Map.of("maxLength", "256", "truncation", "true", "padding", "false"));
            }
        }

        void cacheOptions(Scoring.Question question) throws Exception {
            options = new float[question.options().size()][];
            for (int i = 0; i < options.length; i++) {
                var option = question.options().get(i);
                options[i] = embed(question.instructions() + " " + option.label() + ": " + option.description());
            }
        }

        double[] decide(String state, Scoring.Question question) throws Exception {
            float[] s = embed(state);
            double[] p = new double[options.length];
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < p.length; i++) {
                double dot = 0;
                for (int d = 0; d < s.length; d++) {
                    dot += s[d] * options[i][d];
                }
                p[i] = dot / 0.013;
                max = Math.max(max, p[i]);
            }
            double total = 0;
            for (int i = 0; i < p.length; i++) {
                p[i] = Math.exp(p[i] - max);
                total += p[i];
            }
            for (int i = 0; i < p.length; i++) {
                p[i] /= total;
            }
            return p;
        }

        float[] embed(String text) throws Exception {
            Encoding e = tokenizer.encode(text);
            long[] mask = e.getAttentionMask();
            try (var ids = OnnxTensor.createTensor(env, new long[][] {e.getIds()});
                    var attention = OnnxTensor.createTensor(env, new long[][] {mask});
                    var types = OnnxTensor.createTensor(env, new long[][] {e.getTypeIds()});
                    var result = session.run(
                            Map.of("input_ids", ids, "attention_mask", attention, "token_type_ids", types))) {
                float[][] hidden = ((float[][][]) result.get(0).getValue())[0];
                float[] pooled = new float[hidden[0].length];
                int count = 0;
                for (int t = 0; t < hidden.length; t++) {
                    if (mask[t] == 1) {
                        count++;
                        for (int d = 0; d < pooled.length; d++) {
                            pooled[d] += hidden[t][d];
                        }
                    }
                }
                double norm = 0;
                for (int d = 0; d < pooled.length; d++) {
                    pooled[d] /= count;
                    norm += pooled[d] * pooled[d];
                }
                float inverse = (float) (1 / Math.sqrt(norm));
                for (int d = 0; d < pooled.length; d++) {
                    pooled[d] *= inverse;
                }
                return pooled;
            }
        }
    }
}
