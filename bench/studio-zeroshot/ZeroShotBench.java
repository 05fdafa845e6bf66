import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.arbor.testing.Corpora;
import dev.arbor.testing.Corpora.Item;
import dev.arbor.testing.Corpora.Part;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The bundled embedding model's zero-shot forms measured on public labelled text (dev.arbor.testing.Corpora): for
 * each data set, each way of writing a question and its options as text, and each length the situation is cut at,
 * the accuracy, the ECE (10 bins) and the accuracy of the answers given with certainty >= 0.9 (and how many), at the
 * engine's old temperature and at the one fitted on the FIT half; every figure is on the TEST half. Run from the
 * repository root after the test classes are built, with the test class path:
 * java --enable-native-access=ALL-UNNAMED -cp "target/classes:target/test-classes:$(cat cp.txt)"
 * bench/studio-zeroshot/ZeroShotBench.java [mails per half]
 */
public class ZeroShotBench {
    static final double OLD_TEMPERATURE = 0.013;
    static final double[] GRID = grid(0.005, 0.3, 60);

    /** A question in one form: the text of each option, in option order. */
    record Form(String name, List<String> optionTexts) {}

    /** A data set for one question: its items, the option index each label means, and the forms tried. */
    record DataSet(String name, String primitive, List<Item> items, Function<Item, Integer> truth, List<Form> forms) {}

    /** Per item, the cosine similarity of the situation to each option. */
    record Scored(double[][] similarities, int[] truth, Part[] parts) {}

    public static void main(String[] args) throws Exception {
        int mailsPerHalf = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        System.err.println("loading the model");
        var embedder = new Embedder();
        System.err.println("reading the corpora");
        List<Item> mails = new ArrayList<>(Corpora.slice(Corpora.part(Corpora.spamAssassin(), Part.FIT), mailsPerHalf));
        mails.addAll(Corpora.slice(Corpora.part(Corpora.spamAssassin(), Part.TEST), mailsPerHalf));
        List<Item> sentences = Corpora.sentiment();
        List<Item> topics = Corpora.reviewTopics();

        String spamQ = "Is this mail spam?";
        String sentimentQ = "Is this review positive?";
        String topicQ = "What is this review about?";
        var sets = new ArrayList<DataSet>();
        sets.add(new DataSet(
                "sentiment (yes/no)",
                "noul",
                sentences,
                i -> i.label().equals("positive") ? 1 : 0,
                yesNoForms(sentimentQ, "The reviewer liked it.", "The reviewer did not like it.")));
        String[] topicNames = {"product", "movie", "restaurant"};
        String[] topicDescriptions = {
            "a product bought online, a gadget or a phone accessory",
            "a film, its actors and its story",
            "a restaurant, its food and its service"
        };
        sets.add(new DataSet(
                "review topic (choice)",
                "choice",
                topics,
                i -> List.of(topicNames).indexOf(i.label()),
                choiceForms(topicQ, topicNames, topicDescriptions)));
        for (int t = 0; t < topicNames.length; t++) {
            String name = topicNames[t];
            String child = topicQ + "\nDoes \"" + name + "\" apply?";
            sets.add(new DataSet(
                    "review topic " + name + " (multi child)",
                    "noul",
                    topics,
                    i -> i.label().equals(name) ? 1 : 0,
                    List.of(
                            new Form(
                                    "current",
                                    List.of(
                                            child + " no: no, nothing here suggests this",
                                            child + " yes: yes, this is clearly the case")),
                            new Form("bare", List.of(child + " no", child + " yes")))));
        }

        sets.add(new DataSet(
                "spam (yes/no)",
                "noul",
                mails,
                i -> i.label().equals("spam") ? 1 : 0,
                yesNoForms(
                        spamQ,
                        "This mail is unsolicited advertising or a scam.",
                        "This mail is an ordinary personal or work message.")));
        System.out.println(
                "## Forms (TEST half; T = 0.013 is the old engine temperature, T fit = lowest log loss on FIT)");
        System.out.println();
        System.out.println(
                "| data set | form | tokens | n | accuracy | ECE @0.013 | >=0.9 acc (n) @0.013 | T fit | ECE @T fit"
                        + " | >=0.9 acc (n) @T fit |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        var byPrimitive = new LinkedHashMap<String, List<Scored>>();
        var chosen = new LinkedHashMap<String, Scored>();
        for (DataSet set : sets) {
            int[] lengths = set.name().startsWith("spam") ? new int[] {64, 128, 256} : new int[] {256};
            for (Form form : set.forms()) {
                for (int tokens : lengths) {
                    System.err.println("scoring " + set.name() + " / " + form.name() + " / " + tokens);
                    Scored scored = score(embedder, set, form, tokens);
                    double fitT = bestLogLoss(scored, Part.FIT);
                    Metrics old = metrics(scored, Part.TEST, OLD_TEMPERATURE);
                    Metrics fitted = metrics(scored, Part.TEST, fitT);
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %s | %d | %d | %.3f | %.3f | %s | %.3f | %.3f | %s |%n",
                            set.name(),
                            form.name(),
                            tokens,
                            old.n(),
                            old.accuracy(),
                            old.ece(),
                            old.confident(),
                            fitT,
                            fitted.ece(),
                            fitted.confident());
                    String key = set.name() + "/" + form.name() + "/" + tokens;
                    chosen.put(key, scored);
                }
            }
        }
        // the per-primitive temperature, on the forms the engine uses (bare yes/no sides, "instructions label" for
        // choice, and yes/no sides a template author wrote), pooled by primitive
        String[] used = {
            "spam (yes/no)/bare/256",
            "sentiment (yes/no)/bare/256",
            "sentiment (yes/no)/described/256",
            "review topic (choice)/current/256",
            "review topic (choice)/described/256",
            "review topic product (multi child)/bare/256",
            "review topic movie (multi child)/bare/256",
            "review topic restaurant (multi child)/bare/256"
        };
        for (String key : used) {
            String primitive = key.contains("(choice)") ? "choice" : "noul";
            byPrimitive.computeIfAbsent(primitive, p -> new ArrayList<>()).add(chosen.get(key));
        }
        System.out.println();
        System.out.println("## Temperature per primitive (fitted on FIT, pooled over its data sets; figures on TEST)");
        System.out.println();
        for (var entry : byPrimitive.entrySet()) {
            double logLoss = bestLogLossPooled(entry.getValue());
            double gate = gateTemperature(entry.getValue(), 0.92);
            System.out.printf(
                    Locale.ROOT,
                    "%s: chosen T = %.4f%n",
                    entry.getKey(),
                    temperature(entry.getKey(), entry.getValue()));
            System.out.printf(
                    Locale.ROOT,
                    "%s: lowest log loss at T = %.4f; smallest T whose >=0.9 answers are >=92%% right on"
                            + " every FIT set: %.4f%n",
                    entry.getKey(),
                    logLoss,
                    gate);
        }
        System.out.println();
        System.out.println("| data set | T | accuracy | ECE | >=0.9 acc (n) |");
        System.out.println("|---|---|---|---|---|");
        for (String key : used) {
            String primitive = key.contains("(choice)") ? "choice" : "noul";
            List<Scored> pool = byPrimitive.get(primitive);
            double t = temperature(primitive, pool);
            for (double temperature : new double[] {OLD_TEMPERATURE, t}) {
                Metrics m = metrics(chosen.get(key), Part.TEST, temperature);
                System.out.printf(
                        Locale.ROOT,
                        "| %s | %.4f | %.3f | %.3f | %s |%n",
                        key,
                        temperature,
                        m.accuracy(),
                        m.ece(),
                        m.confident());
            }
        }
    }

    /**
     * Choice: the lowest pooled log loss, unless the gate needs more. Yes/no: the gate alone, the lowest temperature that
     * keeps the confident answers right: the sets where the model has little signal (spam, multi topics) pull the
     * pooled log loss towards "always 0.5", which would silence the yes/no questions where it has some (sentiment).
     */
    static double temperature(String primitive, List<Scored> pool) {
        double gate = gateTemperature(pool, 0.92);
        return primitive.equals("choice") ? Math.max(bestLogLossPooled(pool), gate) : gate;
    }

    static List<Form> yesNoForms(String question, String yes, String no) {
        return List.of(
                new Form(
                        "current",
                        List.of(
                                question + " no: no, nothing here suggests this",
                                question + " yes: yes, this is clearly the case")),
                new Form("bare", List.of(question + " no", question + " yes")),
                new Form("described", List.of(question + " no: " + no, question + " yes: " + yes)),
                new Form("statement", List.of(no, yes)));
    }

    static List<Form> choiceForms(String question, String[] names, String[] descriptions) {
        var current = new ArrayList<String>();
        var label = new ArrayList<String>();
        var described = new ArrayList<String>();
        var statement = new ArrayList<String>();
        var about = new ArrayList<String>();
        for (int i = 0; i < names.length; i++) {
            current.add(question + " " + names[i]);
            label.add(names[i]);
            described.add(question + " " + names[i] + ": " + descriptions[i]);
            statement.add(descriptions[i]);
            about.add("This is about a " + names[i] + ".");
        }
        return List.of(
                new Form("current", current),
                new Form("label", label),
                new Form("described", described),
                new Form("statement", statement),
                new Form("about", about));
    }

    static Scored score(Embedder embedder, DataSet set, Form form, int tokens) throws Exception {
        float[][] options = new float[form.optionTexts().size()][];
        for (int i = 0; i < options.length; i++) {
            options[i] = embedder.embed(form.optionTexts().get(i), 256);
        }
        int n = set.items().size();
        double[][] similarities = new double[n][];
        int[] truth = new int[n];
        Part[] parts = new Part[n];
        for (int k = 0; k < n; k++) {
            Item item = set.items().get(k);
            float[] state = embedder.embed(item.text(), tokens);
            similarities[k] = new double[options.length];
            for (int i = 0; i < options.length; i++) {
                double dot = 0;
                for (int d = 0; d < state.length; d++) {
                    dot += state[d] * options[i][d];
                }
                similarities[k][i] = dot;
            }
            truth[k] = set.truth().apply(item);
            parts[k] = item.part();
        }
        return new Scored(similarities, truth, parts);
    }

    record Metrics(int n, double accuracy, double ece, double logLoss, int confidentN, double confidentAccuracy) {
        String confident() {
            return confidentN == 0 ? "– (0)" : String.format(Locale.ROOT, "%.3f (%d)", confidentAccuracy, confidentN);
        }
    }

    static Metrics metrics(Scored scored, Part part, double temperature) {
        int n = 0, right = 0, confident = 0, confidentRight = 0;
        double logLoss = 0;
        double[] binConfidence = new double[10];
        double[] binRight = new double[10];
        int[] binCount = new int[10];
        for (int k = 0; k < scored.truth().length; k++) {
            if (scored.parts()[k] != part) continue;
            double[] p = softmax(scored.similarities()[k], temperature);
            int best = 0;
            for (int i = 1; i < p.length; i++) if (p[i] > p[best]) best = i;
            boolean ok = best == scored.truth()[k];
            n++;
            if (ok) right++;
            logLoss -= Math.log(Math.max(p[scored.truth()[k]], 1e-12));
            int bin = Math.min(9, (int) (p[best] * 10));
            binConfidence[bin] += p[best];
            binRight[bin] += ok ? 1 : 0;
            binCount[bin]++;
            if (p[best] >= 0.9) {
                confident++;
                if (ok) confidentRight++;
            }
        }
        double ece = 0;
        for (int b = 0; b < 10; b++) {
            if (binCount[b] > 0) ece += Math.abs(binRight[b] - binConfidence[b]) / n;
        }
        return new Metrics(
                n,
                (double) right / n,
                ece,
                logLoss / n,
                confident,
                confident == 0 ? 0 : (double) confidentRight / confident);
    }

    static double bestLogLoss(Scored scored, Part part) {
        double best = GRID[0];
        double lowest = Double.MAX_VALUE;
        for (double t : GRID) {
            double loss = metrics(scored, part, t).logLoss();
            if (loss < lowest) {
                lowest = loss;
                best = t;
            }
        }
        return best;
    }

    static double bestLogLossPooled(List<Scored> pool) {
        double best = GRID[0];
        double lowest = Double.MAX_VALUE;
        for (double t : GRID) {
            double loss = 0;
            for (Scored s : pool) loss += metrics(s, Part.FIT, t).logLoss();
            if (loss < lowest) {
                lowest = loss;
                best = t;
            }
        }
        return best;
    }

    /** The smallest temperature at which every set's answers at >= 0.9 are right at least {@code share} of the time. */
    static double gateTemperature(List<Scored> pool, double share) {
        for (double t : GRID) {
            boolean all = true;
            for (Scored s : pool) {
                Metrics m = metrics(s, Part.FIT, t);
                if (m.confidentN() > 0 && m.confidentAccuracy() < share) all = false;
            }
            if (all) return t;
        }
        return GRID[GRID.length - 1];
    }

    static double[] softmax(double[] scores, double temperature) {
        double max = Double.NEGATIVE_INFINITY;
        for (double s : scores) max = Math.max(max, s);
        double[] p = new double[scores.length];
        double total = 0;
        for (int i = 0; i < p.length; i++) {
            p[i] = Math.exp((scores[i] - max) / temperature);
            total += p[i];
        }
        for (int i = 0; i < p.length; i++) p[i] /= total;
        return p;
    }

    static double[] grid(double from, double to, int steps) {
        double[] grid = new double[steps];
        for (int i = 0; i < steps; i++) grid[i] = from * Math.pow(to / from, (double) i / (steps - 1));
        return grid;
    }

    /** The bundled model as the engine runs it: mean-pooled, unit-length embeddings, the situation cut at N tokens. */
    static final class Embedder {
        final OrtEnvironment env = OrtEnvironment.getEnvironment();
        final OrtSession session;
        final Map<Integer, HuggingFaceTokenizer> tokenizers = new HashMap<>();
        final byte[] tokenizerJson;
        final Map<String, float[]> cache = new HashMap<>();

        Embedder() throws Exception {
            try (InputStream graph = Embedder.class.getResourceAsStream("/all-minilm-l6-v2-q.onnx");
                    InputStream json = Embedder.class.getResourceAsStream("/all-minilm-l6-v2-q-tokenizer.json")) {
                var options = new OrtSession.SessionOptions();
                options.setIntraOpNumThreads(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
                options.addConfigEntry("session.intra_op.allow_spinning", "0");
                session = env.createSession(graph.readAllBytes(), options);
                tokenizerJson = json.readAllBytes();
            }
        }

        float[] embed(String text, int tokens) throws Exception {
            String key = tokens + "\u0000" + text;
            float[] cached = cache.get(key);
            if (cached != null) return cached;
            HuggingFaceTokenizer tokenizer = tokenizers.get(tokens);
            if (tokenizer == null) {
                tokenizer = HuggingFaceTokenizer.newInstance(
                        new java.io.ByteArrayInputStream(tokenizerJson),
                        Map.of("maxLength", Integer.toString(tokens), "truncation", "true", "padding", "false"));
                tokenizers.put(tokens, tokenizer);
            }
            Encoding encoding = tokenizer.encode(text);
            long[] ids = encoding.getIds();
            long[] mask = encoding.getAttentionMask();
            long[] types = encoding.getTypeIds();
            float[] pooled;
            try (OnnxTensor a = OnnxTensor.createTensor(env, new long[][] {ids});
                    OnnxTensor b = OnnxTensor.createTensor(env, new long[][] {mask});
                    OnnxTensor c = OnnxTensor.createTensor(env, new long[][] {types});
                    OrtSession.Result result =
                            session.run(Map.of("input_ids", a, "attention_mask", b, "token_type_ids", c))) {
                float[][] hidden = ((float[][][]) result.get(0).getValue())[0];
                pooled = new float[hidden[0].length];
                for (float[] token : hidden)
                    for (int d = 0; d < pooled.length; d++) pooled[d] += token[d] / hidden.length;
            }
            double norm = 0;
            for (float v : pooled) norm += v * v;
            norm = Math.sqrt(norm);
            for (int d = 0; d < pooled.length; d++) pooled[d] /= (float) Math.max(norm, 1e-12);
            cache.put(key, pooled);
            return pooled;
        }
    }
}
