import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.arbor.Application;
import dev.arbor.Config;
import dev.arbor.models.Models;
import dev.arbor.models.engines.Engine;
import dev.arbor.models.engines.Scoring;
import dev.arbor.models.runtime.ModelRuntime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Decisions per second and latency, four ways in one run, for the hash engine (pure overhead) and the bundled
 * embedding model: the engine called in this process (the floor), the engine through its worker process
 * (ModelRuntime.score, what a decision calls), and POST /v1/studio/decisions with store none and with full storage
 * on SQLite. The pipeline's own overhead (validation, rendering, gating) is read from each answer's timing: total
 * minus load and model time; storage shows as the difference between full and none. Run with the Arbor jar:
 * java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar bench/models/DecisionBench.java [seconds] [warm-up]
 * [models, comma-separated] [rounds: none and full alternate this many times; the ratio shown is their median]
 * (the warm-up matters: the server and its worker processes each have a JIT to warm, on few cores).
 */
public class DecisionBench {
    static final ObjectMapper JSON = new ObjectMapper();
    static int warmSeconds;
    static final String[] STATES = {
        "I was charged twice for my subscription this month and need one of the payments refunded.",
        "The dashboard shows a 500 error whenever I open the reports page since this morning.",
        "We are a 400-person company interested in the enterprise plan. Can we get a quote and a demo?",
        "I can't log in: the password reset email never arrives and my account seems locked."
    };
    static final String QUESTIONS = "{\"team\": {\"type\": \"choice\", \"instructions\": \"Which team should handle "
            + "this message?\", \"criteria\": {\"billing\": \"charges and refunds\", \"technical\": \"errors and "
            + "outages\", \"sales\": \"quotes and plans\", \"account\": \"logins and users\"}}, \"urgent\": "
            + "{\"type\": \"noul\", \"instructions\": \"Does this need an answer today?\"}}";

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        warmSeconds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        Path data = Files.createTempDirectory("arbor-bench-");
        var config = Config.load(
                Map.of(
                        "ARBOR_DATA",
                        data.toString(),
                        "ARBOR_PORT",
                        "0",
                        "ARBOR_TEST_MODELS",
                        "1",
                        "ARBOR_LOG_LEVEL",
                        "WARN"),
                List.of());
        try (var app = Application.start(config);
                var runtime = new ModelRuntime(
                        new Models(true),
                        Files.createTempDirectory("arbor-bench-rt-"),
                        ModelRuntime.Settings.DEFAULT,
                        new SimpleMeterRegistry())) {
            runtime.start();
            URI decisions = URI.create("http://127.0.0.1:" + app.port() + "/v1/studio/decisions");
            System.out.println("| model | callers | in-process /s | in-process p50 | worker /s | worker p50 | none /s"
                    + " | none p50 | none p99 | full /s | full p50 | full p99 | pipeline p50 | pipeline p99"
                    + " | full/none throughput |");
            System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
            for (String model :
                    args.length > 2 ? List.of(args[2].split(",")) : List.of("hash-decider", "minilm-decider")) {
                Engine engine = Engine.load(model.equals("hash-decider") ? "hash" : "embedding", Map.of());
                for (int callers : new int[] {1, 8, 64}) {
                    Load.Result raw = Load.run(callers, seconds, warmSeconds, i -> engine.score(request(i)));
                    Load.Result worker = Load.run(callers, seconds, warmSeconds, i -> runtime.score(model, request(i)));
                    var overheads = new ConcurrentLinkedQueue<Double>();
                    // none and full alternate, so that a noisy minute of this shared machine hits both alike
                    Load.Result none = null;
                    Load.Result full = null;
                    var ratios = new ArrayList<Double>();
                    var byRound = new ArrayList<String>();
                    for (int round = 0; round < rounds; round++) {
                        none = Load.run(callers, seconds, warmSeconds, i -> post(decisions, body(model, i, "none")));
                        full = Load.run(
                                callers,
                                seconds,
                                warmSeconds,
                                i -> overheads.add(post(decisions, body(model, i, "full"))));
                        ratios.add(full.perSecond() / none.perSecond());
                        byRound.add(String.format(
                                "%.2f (%.0f / %.0f)",
                                full.perSecond() / none.perSecond(), full.perSecond(), none.perSecond()));
                    }
                    double[] pipeline = overheads.stream()
                            .mapToDouble(Double::doubleValue)
                            .sorted()
                            .toArray();
                    System.out.printf(
                            "| %s | %d | %.0f | %.3f | %.0f | %.2f | %.0f | %.2f | %.2f | %.0f | %.2f | %.2f"
                                    + " | %.3f | %.3f | %.2f |%n",
                            model,
                            callers,
                            raw.perSecond(),
                            raw.p50(),
                            worker.perSecond(),
                            worker.p50(),
                            none.perSecond(),
                            none.p50(),
                            none.p99(),
                            full.perSecond(),
                            full.p50(),
                            full.p99(),
                            pipeline[pipeline.length / 2],
                            pipeline[(int) (pipeline.length * 0.99)],
                            median(ratios));
                    if (rounds > 1) {
                        System.out.println("|   | full/none by round (full/s / none/s): " + byRound + " |");
                    }
                }
            }
        }
    }

    static double median(List<Double> values) {
        double[] sorted =
                values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }

    static Scoring.Request request(int i) {
        var options = new ArrayList<Scoring.Option>();
        for (String name : List.of("billing", "technical", "sales", "account")) {
            options.add(new Scoring.Option(name, name, null));
        }
        return new Scoring.Request(
                STATES[i % STATES.length],
                List.of(),
                List.of(
                        new Scoring.Question("team", "choice", "Which team should handle this message?", options),
                        new Scoring.Question(
                                "urgent",
                                "noul",
                                "Does this need an answer today?",
                                List.of(
                                        new Scoring.Option("false", "no", null),
                                        new Scoring.Option("true", "yes", null)))));
    }

    static String body(String model, int i, String store) {
        return "{\"model\": \"" + model + "\", \"store\": \"" + store + "\", \"state\": \"" + STATES[i % STATES.length]
                + " (" + i + ")\", \"questions\": " + QUESTIONS + "}";
    }

    /** Posts a decision; returns its pipeline overhead in ms: total time less load and model time. */
    static double post(URI uri, String body) throws Exception {
        var connection = (HttpURLConnection) uri.toURL().openConnection(Proxy.NO_PROXY);
        connection.setRequestMethod("POST");
        connection.setDoOutput(true);
        connection.setRequestProperty("content-type", "application/json");
        try (var out = connection.getOutputStream()) {
            out.write(body.getBytes(StandardCharsets.UTF_8));
        }
        if (connection.getResponseCode() != 200) {
            throw new IllegalStateException(connection.getResponseCode() + " "
                    + new String(connection.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        JsonNode timing;
        try (var in = connection.getInputStream()) {
            timing = JSON.readTree(in).path("timing");
        }
        return timing.path("total_ms").asDouble()
                - timing.path("load_ms").asDouble()
                - timing.path("model_ms").asDouble();
    }
}
