import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import dev.arbor.testing.Corpora;
import dev.arbor.testing.Corpora.Item;
import dev.arbor.testing.Corpora.Part;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * The bundled embedding model's zero-shot forms measured on public labelled text (dev.arbor.testing.Corpora). For each
 * data set, each way of writing the situation (how it is cleaned, where it is cut), each way of writing the options
 * (bare, described, several descriptions per side taken at their max or mean) and each contextual calibration (none,
 * or the similarity of a content-free situation per option subtracted: empty, "N/A", or the mean embedding of the
 * FIT half's situations, no labels), it reports on the TEST half the accuracy, the area under the ROC curve (yes/no),
 * the temperature of lowest log loss on FIT, the ECE (10 bins) and the answers given with certainty >= 0.9. Beside
 * them, what labels reach on the same split: a threshold and scale fitted on FIT (Platt) over the best zero-shot
 * score, and a logistic head on the situation embeddings (120 FIT labels, and all of them).
 *
 * <p>Each situation is embedded once per (cleaning, length) and reused for every option form; embeddings are also
 * kept in target/zeroshot-embeddings.bin, so a second run costs no embedding. Run from the repository root after the
 * test classes are built, with the test class path: java -Xss16m --enable-native-access=ALL-UNNAMED -cp
 * "target/classes:target/test-classes:$(cat target/cp.txt)" bench/studio-zeroshot/ZeroShotBench.java [mails per half]
 */
public class ZeroShotBench {
    /**
     * The bundled model measured (-Dbench.model, the name of its files: all-minilm-l6-v2-q or e5-small-v2-q) and the
     * prefix its catalog form puts before every text (-Dbench.prefix, "query: " for e5).
     */
    static final String MODEL = System.getProperty("bench.model", "all-minilm-l6-v2-q");

    static final String PREFIX = System.getProperty("bench.prefix", "");
    /** Only the first way of writing each situation (-Dbench.quick=true): the engine's, a quarter of the mail work. */
    static final boolean QUICK = Boolean.getBoolean("bench.quick");
    /**
     * The model's temperatures in its catalog entry (-Dbench.t.noul, .choice, .score; MiniLM's by default): yes/no,
     * choice, and score.
     */
    static final double ENGINE_YES_NO = Double.parseDouble(System.getProperty("bench.t.noul", "0.0165"));

    static final double ENGINE_CHOICE = Double.parseDouble(System.getProperty("bench.t.choice", "0.035"));
    static final double ENGINE_SCORE = Double.parseDouble(System.getProperty("bench.t.score", "0.05"));
    static final double[] GRID = grid(0.002, 0.5, 90);
    static final Path CACHE = Path.of(
            MODEL.equals("all-minilm-l6-v2-q")
                    ? "target/zeroshot-embeddings.bin"
                    : "target/zeroshot-embeddings-" + MODEL + (PREFIX.isEmpty() ? "" : "-prefixed") + ".bin");

    /** How a situation is written before it is embedded, and where it is cut. */
    record Situation(String name, UnaryOperator<String> writing, int tokens) {}

    /** A question in one form: per option, the texts it is judged by, and how several are combined. */
    record Form(String name, List<List<String>> optionTexts, boolean max) {
        Form(String name, List<String> single) {
            this(name, single.stream().map(List::of).toList(), true);
        }
    }

    /**
     * A data set for one question: its items, the option index each label means, the situations and forms tried, and
     * the engine's temperature for its question type.
     */
    record DataSet(
            String name,
            List<Item> items,
            Function<Item, Integer> truth,
            List<Situation> situations,
            List<Form> forms,
            double engineTemperature) {}

    /** Per item: the score of each option (after calibration), its truth and its half. */
    record Scored(double[][] scores, int[] truth, Part[] parts) {}

    public static void main(String[] args) throws Exception {
        int mailsPerHalf = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        List<String> only = args.length > 1 ? List.of(args).subList(1, args.length) : List.of();
        System.err.println("loading the model");
        var embedder = new Embedder();
        System.err.println("reading the corpora");
        List<Item> mails = new ArrayList<>(Corpora.slice(Corpora.part(Corpora.spamAssassin(), Part.FIT), mailsPerHalf));
        mails.addAll(Corpora.slice(Corpora.part(Corpora.spamAssassin(), Part.TEST), mailsPerHalf));
        List<Item> sentences = Corpora.sentiment();
        List<Item> topics = Corpora.reviewTopics();

        var asRead = new Situation("as read 256", s -> s, 256);
        String sentimentQ = "Is this review positive?";
        var sets = new ArrayList<DataSet>();
        sets.add(new DataSet(
                "sentiment (yes/no)",
                sentences,
                i -> i.label().equals("positive") ? 1 : 0,
                List.of(asRead),
                List.of(
                        new Form("bare", List.of(sentimentQ + " no", sentimentQ + " yes")),
                        new Form(
                                "written sides",
                                List.of(
                                        sentimentQ + " no: The reviewer did not like it.",
                                        sentimentQ + " yes: The reviewer liked it."))),
                ENGINE_YES_NO));
        String topicQ = "What is this review about?";
        sets.add(new DataSet(
                "review topic (choice)",
                topics,
                i -> List.of("product", "movie", "restaurant").indexOf(i.label()),
                List.of(asRead),
                List.of(
                        new Form("label", List.of(topicQ + " product", topicQ + " movie", topicQ + " restaurant")),
                        new Form(
                                "described",
                                List.of(
                                        topicQ + " product: a product bought online, a gadget or a phone accessory",
                                        topicQ + " movie: a film, its actors and its story",
                                        topicQ + " restaurant: a restaurant, its food and its service"))),
                ENGINE_CHOICE));

        String spamQ = "Is this mail spam?";
        List<String> spamSides = List.of(
                "unsolicited bulk advertising",
                "a scam or a fraud",
                "an offer to make money fast",
                "adult content",
                "a sales pitch for a product or a service");
        List<String> hamSides = List.of(
                "a personal message to a friend",
                "a work message to a colleague",
                "a mailing-list discussion",
                "a reply in a conversation",
                "a newsletter the reader subscribed to");
        sets.add(new DataSet(
                "spam (yes/no)",
                mails,
                i -> i.label().equals("spam") ? 1 : 0,
                List.of(
                        asRead,
                        new Situation("as read 128", s -> s, 128),
                        new Situation("cleaned 256", ZeroShotBench::cleaned, 256),
                        new Situation("cleaned 64", ZeroShotBench::cleaned, 64)),
                List.of(
                        new Form("bare", List.of(spamQ + " no", spamQ + " yes")),
                        new Form(
                                "written sides",
                                List.of(
                                        spamQ + " no: This mail is an ordinary personal or work message.",
                                        spamQ + " yes: This mail is unsolicited advertising or a scam.")),
                        new Form(
                                "one side each",
                                List.of(
                                        spamQ + " no: a personal or work message, a mailing-list discussion",
                                        spamQ + " yes: unsolicited bulk advertising, scams, money offers, adult"
                                                + " content")),
                        new Form(
                                "five sides each, max",
                                List.of(prefixed(spamQ + " no: ", hamSides), prefixed(spamQ + " yes: ", spamSides)),
                                true),
                        new Form(
                                "five sides each, mean",
                                List.of(prefixed(spamQ + " no: ", hamSides), prefixed(spamQ + " yes: ", spamSides)),
                                false),
                        new Form("five statements each, max", List.of(hamSides, spamSides), true)),
                ENGINE_YES_NO));
        String valenceQ = "How positive or negative is this word?";
        sets.add(new DataSet(
                "word valence (score)",
                Corpora.valence(),
                i -> Corpora.VALENCE_LEVELS.indexOf(i.label()),
                List.of(asRead),
                List.of(
                        new Form("levels", prefixed(valenceQ + " ", Corpora.VALENCE_LEVELS)),
                        new Form("levels alone", Corpora.VALENCE_LEVELS),
                        new Form(
                                "numbered levels",
                                List.of(
                                        valenceQ + " 1 (very negative)",
                                        valenceQ + " 2 (negative)",
                                        valenceQ + " 3 (neutral)",
                                        valenceQ + " 4 (positive)",
                                        valenceQ + " 5 (very positive)"))),
                ENGINE_SCORE));
        sets.removeIf(set -> !only.isEmpty() && only.stream().noneMatch(set.name()::startsWith));
        if (QUICK) {
            sets.replaceAll(set -> new DataSet(
                    set.name(),
                    set.items(),
                    set.truth(),
                    set.situations().subList(0, 1),
                    set.forms(),
                    set.engineTemperature()));
        }
        boolean reviewValence = only.isEmpty() || only.stream().anyMatch("review valence"::startsWith);

        System.out.printf(
                Locale.ROOT,
                "model %s, prefix \"%s\"; load average at start: %.2f on %d cores%n%n",
                MODEL,
                PREFIX,
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage(),
                Runtime.getRuntime().availableProcessors());
        System.out.println("## Zero-shot (figures on TEST; T fitted on FIT by log loss)");
        System.out.println();
        System.out.println(
                "| data set | situation | form | calibration | n | accuracy | AUC | T | ECE | >=0.9 acc (n) |"
                        + " ECE @engine T | >=0.9 acc (n) @engine T | FIT accuracy | lowest T meeting the gate on FIT |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (DataSet set : sets) {
            int[] truthAll =
                    set.items().stream().mapToInt(i -> set.truth().apply(i)).toArray();
            Part[] parts = set.items().stream().map(Item::part).toArray(Part[]::new);
            String bestKey = null;
            double bestFit = -1;
            String bestBare = "none";
            double bestBareFit = -1;
            Scored bestScored = null;
            Scored engineScored = null;
            float[][] bestStates = null;
            for (Situation situation : set.situations()) {
                System.err.println("embedding " + set.name() + " / " + situation.name());
                float[][] states = new float[set.items().size()][];
                for (int k = 0; k < states.length; k++) {
                    states[k] = embedder.embed(
                            situation.writing().apply(set.items().get(k).text()), situation.tokens());
                    if (k % 250 == 249) System.err.println("  " + (k + 1));
                }
                embedder.save();
                Map<String, float[]> contentFree = new java.util.LinkedHashMap<>();
                contentFree.put("none", null);
                contentFree.put("empty", embedder.embed("", 256));
                contentFree.put("N/A", embedder.embed("N/A", 256));
                contentFree.put("mean of FIT situations", meanOf(states, parts, Part.FIT));
                for (Form form : set.forms()) {
                    float[][][] options = new float[form.optionTexts().size()][][];
                    for (int o = 0; o < options.length; o++) {
                        List<String> texts = form.optionTexts().get(o);
                        options[o] = new float[texts.size()][];
                        for (int t = 0; t < texts.size(); t++) options[o][t] = embedder.embed(texts.get(t), 256);
                    }
                    for (var cf : contentFree.entrySet()) {
                        double[] bias = cf.getValue() == null
                                ? new double[options.length]
                                : similarities(cf.getValue(), options, form.max());
                        double[][] scores = new double[states.length][];
                        for (int k = 0; k < states.length; k++) {
                            scores[k] = similarities(states[k], options, form.max());
                            for (int o = 0; o < options.length; o++) scores[k][o] -= bias[o];
                        }
                        var scored = new Scored(scores, truthAll, parts);
                        double t = bestLogLoss(scored, Part.FIT);
                        Metrics test = metrics(scored, Part.TEST, t);
                        double fitAccuracy = metrics(scored, Part.FIT, t).accuracy();
                        Metrics engine = metrics(scored, Part.TEST, set.engineTemperature());
                        String auc =
                                options.length == 2 ? String.format(Locale.ROOT, "%.3f", auc(scored, Part.TEST)) : "–";
                        System.out.printf(
                                Locale.ROOT,
                                "| %s | %s | %s | %s | %d | %.3f | %s | %.4f | %.3f | %s | %.3f | %s | %.3f | %.4f |%n",
                                set.name(),
                                situation.name(),
                                form.name(),
                                cf.getKey(),
                                test.n(),
                                test.accuracy(),
                                auc,
                                t,
                                test.ece(),
                                test.confident(),
                                engine.ece(),
                                engine.confident(),
                                fitAccuracy,
                                gate(scored));
                        // the engine writes only the bare question for a yes/no without written sides
                        if (form.name().equals("bare") && fitAccuracy > bestBareFit) {
                            bestBareFit = fitAccuracy;
                            bestBare = String.format(
                                    Locale.ROOT,
                                    "%s / %s: accuracy %.3f, ECE %.3f on TEST",
                                    situation.name(),
                                    cf.getKey(),
                                    test.accuracy(),
                                    test.ece());
                        }
                        // the engine's own form: the first situation and form listed, uncalibrated
                        if (engineScored == null && form == set.forms().getFirst() && cf.getValue() == null) {
                            engineScored = scored;
                        }
                        if (fitAccuracy > bestFit) {
                            bestFit = fitAccuracy;
                            bestKey = situation.name() + " / " + form.name() + " / " + cf.getKey();
                            bestScored = scored;
                            bestStates = states;
                        }
                    }
                }
            }
            supervised(set, bestKey, bestScored, bestStates, truthAll, parts);
            temperatures(set.name() + ", chosen on FIT", set.engineTemperature(), bestScored);
            temperatures(set.name() + ", the engine's form", set.engineTemperature(), engineScored);
            if (set.name().startsWith("word valence")) raters();
            System.out.printf("- the bare question (what the engine writes alone), chosen on FIT: %s%n%n", bestBare);
        }
        if (reviewValence) reviewValence(embedder, sentences);
    }

    /**
     * A score question over texts, where only the side is labelled: "How positive or negative is this review?" with
     * the five valence levels, on the review sentences (positive or negative). An answer is on the right side when its
     * level is on the label's side (neutral never is); the levels inside a side are not known, so this is the most an
     * answer can be right, and a temperature whose certain answers miss even this is too low.
     */
    static void reviewValence(Embedder embedder, List<Item> sentences) throws Exception {
        List<String> options = prefixed("How positive or negative is this review? ", Corpora.VALENCE_LEVELS);
        float[][][] optionVectors = new float[options.size()][1][];
        for (int o = 0; o < options.size(); o++) optionVectors[o][0] = embedder.embed(options.get(o), 256);
        double[][] scores = new double[sentences.size()][];
        for (int k = 0; k < scores.length; k++) {
            scores[k] = similarities(embedder.embed(sentences.get(k).text(), 256), optionVectors, true);
        }
        embedder.save();
        System.out.println(
                "## Review valence (score, only the side labelled): the engine's form on the review sentences");
        System.out.println();
        System.out.println(
                "| T | FIT side log loss | FIT right side | FIT >=0.9 on the right side (n) | TEST right side |"
                        + " TEST neutral | TEST >=0.9 on the right side (n) |");
        System.out.println("|---|---|---|---|---|---|---|");
        var ts = new java.util.TreeSet<Double>(
                List.of(0.005, 0.0075, 0.01, 0.0165, 0.025, 0.035, 0.05, 0.075, 0.1, 0.128));
        for (double t : ts) {
            String[] cells = new String[2];
            double[] right = new double[2];
            double neutral = 0;
            double sideLogLoss = 0;
            for (Part part : Part.values()) {
                int n = 0, onSide = 0, certain = 0, certainOnSide = 0, neutrals = 0;
                double logLoss = 0;
                for (int k = 0; k < scores.length; k++) {
                    Item item = sentences.get(k);
                    if (item.part() != part) continue;
                    double[] p = softmax(scores[k], t);
                    int level = argmax(p);
                    boolean positive = item.label().equals("positive");
                    boolean ok = positive ? level >= 3 : level <= 1;
                    // the probability given to the label's side, which a log loss can judge without the level
                    logLoss -= Math.log(Math.max(1e-12, positive ? p[3] + p[4] : p[0] + p[1]));
                    n++;
                    onSide += ok ? 1 : 0;
                    neutrals += level == 2 ? 1 : 0;
                    if (p[level] >= GATE) {
                        certain++;
                        certainOnSide += ok ? 1 : 0;
                    }
                }
                right[part.ordinal()] = (double) onSide / n;
                cells[part.ordinal()] = certain == 0
                        ? "– (0)"
                        : String.format(Locale.ROOT, "%.3f (%d)", (double) certainOnSide / certain, certain);
                if (part == Part.TEST) neutral = (double) neutrals / n;
                if (part == Part.FIT) sideLogLoss = logLoss / n;
            }
            System.out.printf(
                    Locale.ROOT,
                    "| %.4f | %.3f | %.3f | %s | %.3f | %.3f | %s |%n",
                    t,
                    sideLogLoss,
                    right[0],
                    cells[0],
                    right[1],
                    neutral,
                    cells[1]);
        }
        System.out.println();
    }

    /** What labels reach on the same split, beside the zero-shot form chosen on FIT. */
    static void supervised(DataSet set, String bestKey, Scored best, float[][] states, int[] truth, Part[] parts) {
        System.out.println();
        System.out.printf("### %s: chosen on FIT: %s%n%n", set.name(), bestKey);
        int classes = best.scores()[0].length;
        int[] counts = new int[classes];
        int testN = 0;
        for (int k = 0; k < truth.length; k++) {
            if (parts[k] == Part.TEST) {
                counts[truth[k]]++;
                testN++;
            }
        }
        int majority = 0;
        for (int c = 1; c < classes; c++) if (counts[c] > counts[majority]) majority = c;
        System.out.printf(
                Locale.ROOT,
                "- majority answer (always option %d) on TEST: accuracy %.3f%n",
                majority,
                (double) counts[majority] / testN);
        if (classes != 2) {
            System.out.println();
            return;
        }
        // Platt: a scale and a threshold fitted on FIT labels over the chosen zero-shot score (yes minus no)
        var fitX = new ArrayList<double[]>();
        var fitY = new ArrayList<Integer>();
        for (int k = 0; k < truth.length; k++) {
            if (parts[k] == Part.FIT) {
                fitX.add(new double[] {best.scores()[k][1] - best.scores()[k][0]});
                fitY.add(truth[k]);
            }
        }
        double[] platt = logistic(fitX, fitY, 1e-6);
        Metrics plattTest =
                binaryMetrics(k -> new double[] {best.scores()[k][1] - best.scores()[k][0]}, platt, truth, parts);
        System.out.printf(
                Locale.ROOT,
                "- its score with a threshold and scale fitted on all FIT labels (Platt): %s%n",
                plattTest.line());
        var fitIndexes = new ArrayList<Integer>();
        for (int k = 0; k < truth.length; k++) if (parts[k] == Part.FIT) fitIndexes.add(k);
        // a head is the spam question's reference (issue 24's figures); the other sets are measured for their zero-shot
        for (int labels : set.name().startsWith("spam") ? new int[] {120, fitIndexes.size()} : new int[0]) {
            List<Integer> chosen = fitIndexes.subList(0, Math.min(labels, fitIndexes.size()));
            var x = new ArrayList<double[]>();
            var y = new ArrayList<Integer>();
            for (int k : chosen) {
                x.add(toDouble(states[k]));
                y.add(truth[k]);
            }
            double lambda = crossValidatedLambda(x, y);
            double[] w = logistic(x, y, lambda);
            Metrics head = binaryMetrics(k -> toDouble(states[k]), w, truth, parts);
            System.out.printf(
                    Locale.ROOT,
                    "- a logistic head on the situation embeddings, %d FIT labels (L2 %.3g by 5-fold CV): %s%n",
                    chosen.size(),
                    lambda,
                    head.line());
        }
        System.out.println();
    }

    /** Marks of a temperature given with certainty: the share right among the answers at >= 0.9, per half. */
    static final double GATE = 0.9;

    /**
     * The chosen form at temperatures around the engine's: what the certainty gate gets on FIT and TEST, and the
     * lowest temperature of the grid whose answers given with certainty >= 0.9 on FIT are right at least 90% of the
     * time (lower temperatures are more certain, so the lowest that still keeps the promise gives the most answers).
     */
    static void temperatures(String name, double engineTemperature, Scored best) {
        double fitted = bestLogLoss(best, Part.FIT);
        double gate = gate(best);
        System.out.printf(
                Locale.ROOT,
                "Temperatures for %s (the engine's %.4f, lowest FIT log loss %.4f, lowest meeting the gate on FIT"
                        + " %.4f):%n%n",
                name,
                engineTemperature,
                fitted,
                gate);
        System.out.println("| T | FIT log loss | FIT >=0.9 acc (n) | TEST accuracy | TEST ECE | TEST >=0.9 acc (n) |"
                + " TEST within one | TEST MAE |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        var ts = new java.util.TreeSet<Double>(List.of(0.01, 0.0165, 0.025, 0.035, 0.05, 0.075, 0.1));
        ts.add(engineTemperature);
        ts.add(fitted);
        if (!Double.isNaN(gate)) ts.add(gate);
        for (double t : ts) {
            Metrics fit = metrics(best, Part.FIT, t);
            Metrics test = metrics(best, Part.TEST, t);
            System.out.printf(
                    Locale.ROOT,
                    "| %.4f | %.3f | %s | %.3f | %.3f | %s | %.3f | %.3f |%n",
                    t,
                    fit.logLoss(),
                    fit.confident(),
                    test.accuracy(),
                    test.ece(),
                    test.confident(),
                    withinOne(best, Part.TEST),
                    meanAbsoluteError(best, Part.TEST));
        }
        System.out.println();
    }

    /** The lowest temperature of the grid whose answers at certainty >= 0.9 on FIT are right at least 90% of the time. */
    static double gate(Scored scored) {
        for (double t : GRID) {
            Metrics fit = metrics(scored, Part.FIT, t);
            if (fit.confidentN() == 0 || fit.confidentAccuracy() >= GATE) {
                return t;
            }
        }
        return Double.NaN;
    }

    /** The share of answers at most one option away from the truth: what "within one" means for an ordered scale. */
    static double withinOne(Scored scored, Part part) {
        int n = 0, near = 0;
        for (int k = 0; k < scored.truth().length; k++) {
            if (scored.parts()[k] != part) continue;
            n++;
            near += Math.abs(argmax(scored.scores()[k]) - scored.truth()[k]) <= 1 ? 1 : 0;
        }
        return (double) near / n;
    }

    static double meanAbsoluteError(Scored scored, Part part) {
        int n = 0;
        double error = 0;
        for (int k = 0; k < scored.truth().length; k++) {
            if (scored.parts()[k] != part) continue;
            n++;
            error += Math.abs(argmax(scored.scores()[k]) - scored.truth()[k]);
        }
        return error / n;
    }

    static int argmax(double[] scores) {
        int best = 0;
        for (int i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
        return best;
    }

    /**
     * How far people agree on the same levels: of the TEST words' ratings, the share of single raters whose own rating
     * falls in the level of the ten's mean (and at most one level away) — a ceiling no reading of the word can pass by
     * much, since the level is itself an average of people who disagree.
     */
    static void raters() {
        List<Corpora.RatedWord> words = Corpora.vaderWords();
        List<Item> items = Corpora.valence(); // the same words in the same order, labelled by their mean
        int ratings = 0, same = 0, near = 0;
        for (int k = 0; k < words.size(); k++) {
            if (items.get(k).part() != Part.TEST) continue;
            int level = Corpora.VALENCE_LEVELS.indexOf(items.get(k).label());
            for (int rating : words.get(k).ratings()) {
                int own = Corpora.VALENCE_LEVELS.indexOf(Corpora.valenceLevel(rating));
                ratings++;
                same += own == level ? 1 : 0;
                near += Math.abs(own - level) <= 1 ? 1 : 0;
            }
        }
        System.out.printf(
                Locale.ROOT,
                "- one rater against the level of the ten's mean (TEST words, %d ratings): same level %.3f, within one"
                        + " %.3f%n%n",
                ratings,
                (double) same / ratings,
                (double) near / ratings);
    }

    static List<String> prefixed(String prefix, List<String> texts) {
        return texts.stream().map(t -> prefix + t).toList();
    }

    private static final Pattern MIME_LINE =
            Pattern.compile("(?m)^(--\\S+|Content-[A-Za-z-]+:.*|\\s*charset=.*|This is a multi-part message.*)$");
    private static final Pattern QUOTED = Pattern.compile("(?m)^\\s*>.*$");
    private static final Pattern SIGNATURE = Pattern.compile("(?s)\\n-- ?\\n.*$");
    private static final Pattern ENTITY = Pattern.compile("&#?[A-Za-z0-9]+;");
    private static final Pattern LONG_RUN = Pattern.compile("\\S{40,}");
    private static final Pattern RULES = Pattern.compile("[-_=*#~]{4,}");
    private static final Pattern WHITE = Pattern.compile("\\s+");

    /** The mail as a person reads it: MIME parts' headers, quoted lines, the signature and encoded runs removed. */
    static String cleaned(String mail) {
        String text = SIGNATURE.matcher(mail).replaceAll("");
        text = MIME_LINE.matcher(text).replaceAll(" ");
        text = QUOTED.matcher(text).replaceAll(" ");
        text = ENTITY.matcher(text).replaceAll(" ");
        text = LONG_RUN.matcher(text).replaceAll(" ");
        text = RULES.matcher(text).replaceAll(" ");
        return WHITE.matcher(text).replaceAll(" ").strip();
    }

    static double[] similarities(float[] state, float[][][] options, boolean max) {
        double[] s = new double[options.length];
        for (int o = 0; o < options.length; o++) {
            double agg = max ? Double.NEGATIVE_INFINITY : 0;
            for (float[] text : options[o]) {
                double dot = dot(state, text);
                agg = max ? Math.max(agg, dot) : agg + dot / options[o].length;
            }
            s[o] = agg;
        }
        return s;
    }

    static float[] meanOf(float[][] states, Part[] parts, Part part) {
        float[] mean = new float[states[0].length];
        int n = 0;
        for (int k = 0; k < states.length; k++) {
            if (parts[k] != part) continue;
            n++;
            for (int d = 0; d < mean.length; d++) mean[d] += states[k][d];
        }
        for (int d = 0; d < mean.length; d++) mean[d] /= n;
        return mean;
    }

    static double dot(float[] a, float[] b) {
        double sum = 0;
        for (int d = 0; d < a.length; d++) sum += a[d] * b[d];
        return sum;
    }

    static double[] toDouble(float[] v) {
        double[] d = new double[v.length];
        for (int i = 0; i < v.length; i++) d[i] = v[i];
        return d;
    }

    record Metrics(int n, double accuracy, double ece, double logLoss, int confidentN, double confidentAccuracy) {
        String confident() {
            return confidentN == 0 ? "– (0)" : String.format(Locale.ROOT, "%.3f (%d)", confidentAccuracy, confidentN);
        }

        String line() {
            return String.format(
                    Locale.ROOT, "accuracy %.3f, ECE %.3f, >=0.9 right %s on TEST", accuracy, ece, confident());
        }
    }

    /** Accumulates accuracy, log loss, ECE (10 bins) and the confident answers from each item's probabilities. */
    static final class Tally {
        int n, right, confident, confidentRight;
        double logLoss;
        final double[] binConfidence = new double[10];
        final double[] binRight = new double[10];

        void add(double[] p, int truth) {
            int best = 0;
            for (int i = 1; i < p.length; i++) if (p[i] > p[best]) best = i;
            boolean ok = best == truth;
            n++;
            right += ok ? 1 : 0;
            logLoss -= Math.log(Math.max(p[truth], 1e-12));
            int bin = Math.min(9, (int) (p[best] * 10));
            binConfidence[bin] += p[best];
            binRight[bin] += ok ? 1 : 0;
            if (p[best] >= 0.9) {
                confident++;
                confidentRight += ok ? 1 : 0;
            }
        }

        Metrics metrics() {
            double ece = 0;
            for (int b = 0; b < 10; b++) ece += Math.abs(binRight[b] - binConfidence[b]) / n;
            return new Metrics(
                    n,
                    (double) right / n,
                    ece,
                    logLoss / n,
                    confident,
                    confident == 0 ? 0 : (double) confidentRight / confident);
        }
    }

    static Metrics metrics(Scored scored, Part part, double temperature) {
        var tally = new Tally();
        for (int k = 0; k < scored.truth().length; k++) {
            if (scored.parts()[k] == part) tally.add(softmax(scored.scores()[k], temperature), scored.truth()[k]);
        }
        return tally.metrics();
    }

    static Metrics binaryMetrics(
            java.util.function.IntFunction<double[]> features, double[] w, int[] truth, Part[] parts) {
        var tally = new Tally();
        for (int k = 0; k < truth.length; k++) {
            if (parts[k] != Part.TEST) continue;
            double p = sigmoid(linear(w, features.apply(k)));
            tally.add(new double[] {1 - p, p}, truth[k]);
        }
        return tally.metrics();
    }

    /** Area under the ROC curve of the yes-minus-no score: how well it ranks, whatever threshold is put on it. */
    static double auc(Scored scored, Part part) {
        var positives = new ArrayList<Double>();
        var negatives = new ArrayList<Double>();
        for (int k = 0; k < scored.truth().length; k++) {
            if (scored.parts()[k] != part) continue;
            double d = scored.scores()[k][1] - scored.scores()[k][0];
            (scored.truth()[k] == 1 ? positives : negatives).add(d);
        }
        double[] neg =
                negatives.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        double wins = 0;
        for (double p : positives) {
            int below = lowerBound(neg, p);
            int notAbove = upperBound(neg, p);
            wins += below + 0.5 * (notAbove - below);
        }
        return wins / ((double) positives.size() * neg.length);
    }

    static int lowerBound(double[] a, double v) {
        int i = Arrays.binarySearch(a, v);
        if (i < 0) return -i - 1;
        while (i > 0 && a[i - 1] == v) i--;
        return i;
    }

    static int upperBound(double[] a, double v) {
        int i = Arrays.binarySearch(a, v);
        if (i < 0) return -i - 1;
        while (i < a.length && a[i] == v) i++;
        return i;
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

    /** L2-regularised logistic regression (weights then bias, bias not penalised) by Newton's method. */
    static double[] logistic(List<double[]> x, List<Integer> y, double lambda) {
        int d = x.get(0).length + 1;
        double[] w = new double[d];
        for (int iteration = 0; iteration < 20; iteration++) {
            double[] gradient = new double[d];
            double[][] hessian = new double[d][d];
            for (int k = 0; k < x.size(); k++) {
                double[] f = withBias(x.get(k));
                double p = sigmoid(linear(w, x.get(k)));
                for (int i = 0; i < d; i++) {
                    gradient[i] += (p - y.get(k)) * f[i];
                    double hi = p * (1 - p) * f[i];
                    for (int j = 0; j <= i; j++) hessian[i][j] += hi * f[j];
                }
            }
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < i; j++) hessian[j][i] = hessian[i][j];
                if (i < d - 1) {
                    gradient[i] += lambda * w[i];
                    hessian[i][i] += lambda;
                }
                hessian[i][i] += 1e-9;
            }
            double[] step = solve(hessian, gradient);
            double size = 0;
            for (int i = 0; i < d; i++) {
                w[i] -= step[i];
                size += Math.abs(step[i]);
            }
            if (size < 1e-6) break;
        }
        return w;
    }

    static double crossValidatedLambda(List<double[]> x, List<Integer> y) {
        double best = 1;
        double lowest = Double.MAX_VALUE;
        for (double lambda : new double[] {0.01, 0.03, 0.1, 0.3, 1, 3, 10}) {
            double loss = 0;
            for (int fold = 0; fold < 5; fold++) {
                var tx = new ArrayList<double[]>();
                var ty = new ArrayList<Integer>();
                for (int k = 0; k < x.size(); k++) {
                    if (k % 5 != fold) {
                        tx.add(x.get(k));
                        ty.add(y.get(k));
                    }
                }
                double[] w = logistic(tx, ty, lambda);
                for (int k = fold; k < x.size(); k += 5) {
                    double p = sigmoid(linear(w, x.get(k)));
                    loss -= Math.log(Math.max(y.get(k) == 1 ? p : 1 - p, 1e-12));
                }
            }
            if (loss < lowest) {
                lowest = loss;
                best = lambda;
            }
        }
        return best;
    }

    static double[] withBias(double[] x) {
        double[] f = Arrays.copyOf(x, x.length + 1);
        f[x.length] = 1;
        return f;
    }

    static double linear(double[] w, double[] x) {
        double z = w[x.length];
        for (int i = 0; i < x.length; i++) z += w[i] * x[i];
        return z;
    }

    static double sigmoid(double z) {
        return 1 / (1 + Math.exp(-z));
    }

    /** Gaussian elimination with partial pivoting; a is overwritten. */
    static double[] solve(double[][] a, double[] b) {
        int n = b.length;
        double[] x = b.clone();
        for (int c = 0; c < n; c++) {
            int pivot = c;
            for (int r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[pivot][c])) pivot = r;
            double[] row = a[c];
            a[c] = a[pivot];
            a[pivot] = row;
            double tmp = x[c];
            x[c] = x[pivot];
            x[pivot] = tmp;
            for (int r = c + 1; r < n; r++) {
                double factor = a[r][c] / a[c][c];
                if (factor == 0) continue;
                for (int k = c; k < n; k++) a[r][k] -= factor * a[c][k];
                x[r] -= factor * x[c];
            }
        }
        for (int r = n - 1; r >= 0; r--) {
            double sum = x[r];
            for (int k = r + 1; k < n; k++) sum -= a[r][k] * x[k];
            x[r] = sum / a[r][r];
        }
        return x;
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

    /**
     * The bundled model as the engine runs it: mean-pooled, unit-length embeddings, the text cut at N tokens; each
     * embedding kept by the hash of its length and text, in memory and in {@link #CACHE}.
     */
    static final class Embedder {
        final OrtEnvironment env = OrtEnvironment.getEnvironment();
        final OrtSession session;
        final Map<Integer, HuggingFaceTokenizer> tokenizers = new HashMap<>();
        final byte[] tokenizerJson;
        final Map<String, float[]> cache = new HashMap<>();
        final Map<String, float[]> unsaved = new HashMap<>();

        Embedder() throws Exception {
            try (InputStream graph = Embedder.class.getResourceAsStream("/" + MODEL + ".onnx");
                    InputStream json = Embedder.class.getResourceAsStream("/" + MODEL + "-tokenizer.json")) {
                var options = new OrtSession.SessionOptions();
                options.setIntraOpNumThreads(Math.max(1, Runtime.getRuntime().availableProcessors() / 2));
                options.addConfigEntry("session.intra_op.allow_spinning", "0");
                session = env.createSession(graph.readAllBytes(), options);
                tokenizerJson = json.readAllBytes();
            }
            if (Files.exists(CACHE)) {
                try (var in = new DataInputStream(new BufferedInputStream(Files.newInputStream(CACHE)))) {
                    while (true) {
                        String key;
                        try {
                            key = in.readUTF();
                        } catch (EOFException end) {
                            break;
                        }
                        float[] v = new float[in.readInt()];
                        for (int d = 0; d < v.length; d++) v[d] = in.readFloat();
                        cache.put(key, v);
                    }
                }
                System.err.println("cached embeddings: " + cache.size());
            }
        }

        void save() throws Exception {
            if (unsaved.isEmpty()) return;
            Files.createDirectories(CACHE.getParent());
            try (var out = new DataOutputStream(new BufferedOutputStream(
                    Files.newOutputStream(CACHE, StandardOpenOption.CREATE, StandardOpenOption.APPEND)))) {
                for (var entry : unsaved.entrySet()) {
                    out.writeUTF(entry.getKey());
                    out.writeInt(entry.getValue().length);
                    for (float f : entry.getValue()) out.writeFloat(f);
                }
            }
            unsaved.clear();
        }

        float[] embed(String text, int tokens) throws Exception {
            String key = tokens + ":"
                    + HexFormat.of()
                            .formatHex(
                                    MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
            float[] cached = cache.get(key);
            if (cached != null) return cached;
            HuggingFaceTokenizer tokenizer = tokenizers.get(tokens);
            if (tokenizer == null) {
                tokenizer = HuggingFaceTokenizer.newInstance(
                        new java.io.ByteArrayInputStream(tokenizerJson),
                        Map.of("maxLength", Integer.toString(tokens), "truncation", "true", "padding", "false"));
                tokenizers.put(tokens, tokenizer);
            }
            Encoding encoding = tokenizer.encode(PREFIX + text);
            long[] ids = encoding.getIds();
            long[] mask = encoding.getAttentionMask();
            long[] types = encoding.getTypeIds();
            float[] pooled;
            try (OnnxTensor a = OnnxTensor.createTensor(env, new long[][] {ids});
                    OnnxTensor b = OnnxTensor.createTensor(env, new long[][] {mask});
                    OnnxTensor c = OnnxTensor.createTensor(env, new long[][] {types});
                    OrtSession.Result result = session.run(
                            session.getInputNames().contains("token_type_ids")
                                    ? Map.of("input_ids", a, "attention_mask", b, "token_type_ids", c)
                                    : Map.of("input_ids", a, "attention_mask", b))) {
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
            unsaved.put(key, pooled);
            return pooled;
        }
    }
}
