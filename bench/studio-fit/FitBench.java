import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.Application;
import dev.arbor.Config;
import dev.arbor.testing.Corpora;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Fitted heads on the bundled embedding model and the SpamAssassin public mail corpus, through the API. For each
 * label count (120 and 5,000 by default) a template gets that many labelled mails as calibration examples and the
 * held-out mails as its test split, and is fitted twice: the first fit embeds every mail (cold cache), the second reads
 * every embedding from the cache, so the first minus the second is the embedding and the second is the fit without
 * it. An eval of the fitted version on the test split gives the head's quality on mails it never saw. For a count of
 * at most 1,000 the zero-shot version 1 is evaluated beside it and a fitted decision's latency is taken beside a
 * zero-shot one (interleaved). The held-out mails come from the corpus's test part; the labels from its fit part
 * first, then from the rest of the test part (the fit part alone has about 3,000 mails), never a held-out one. Run
 * with the test class path, after ./mvnw test-compile (which installs the corpus):
 * ./mvnw -o -q dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile=cp.txt
 * java -cp "target/classes:target/test-classes:$(cat cp.txt)" bench/studio-fit/FitBench.java [labels,...] [held-out]
 * With FIT_BENCH_DATA naming the data folder of an earlier run, its templates and embeddings are used again.
 */
public class FitBench {
    static final ObjectMapper JSON = new ObjectMapper();
    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static String base;

    public static void main(String[] args) throws Exception {
        int[] counts = Arrays.stream((args.length > 0 ? args[0] : "120,5000").split(","))
                .mapToInt(Integer::parseInt)
                .toArray();
        int held = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        // a data folder of an earlier run keeps its templates and cached embeddings: its fits measure the fitting alone
        String data = System.getenv()
                .getOrDefault(
                        "FIT_BENCH_DATA",
                        Files.createTempDirectory("arbor-fit-bench-").toString());
        System.out.println("data folder " + data);
        var env = Map.of(
                "ARBOR_DATA", data,
                "ARBOR_PORT", "0",
                "ARBOR_LOG_LEVEL", "WARN");
        List<Corpora.Item> testPart = Corpora.part(Corpora.spamAssassin(), Corpora.Part.TEST);
        List<Corpora.Item> test = Corpora.slice(testPart, held);
        var labels = new ArrayList<>(Corpora.slice(Corpora.part(Corpora.spamAssassin(), Corpora.Part.FIT), 100_000));
        Corpora.slice(testPart, testPart.size()).stream()
                .filter(mail -> !test.contains(mail))
                .forEach(labels::add);
        System.out.printf(
                "%d mails: %d held out, %d to label from; load average %.2f%n",
                Corpora.spamAssassin().size(),
                test.size(),
                labels.size(),
                java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                        .getSystemLoadAverage());
        try (var app = Application.start(Config.load(env, List.of()))) {
            base = "http://127.0.0.1:" + app.port();
            for (int count : counts) {
                String template = "mail-" + count;
                List<Corpora.Item> calibration = labels.subList(0, Math.min(count, labels.size()));
                template(template, calibration, test);
                double[] seconds = fitTwice(template);
                System.out.printf(
                        "fit %d labels: first %.2f s (embedding included), cached %.2f s; so embedding %.2f s, "
                                + "fitting %.2f s%n",
                        calibration.size(), seconds[0], seconds[1], seconds[0] - seconds[1], seconds[1]);
                boolean small = count <= 1000;
                if (small) {
                    latency(template);
                }
                int fitted =
                        get("/v1/studio/templates/" + template).path("version").asInt();
                quality(template, small ? "[1, " + fitted + "]" : "[" + fitted + "]");
            }
        }
    }

    static void template(String id, List<Corpora.Item> calibration, List<Corpora.Item> test) throws Exception {
        if (get("/v1/studio/templates/" + id).has("id")) {
            return; // made by an earlier run on this data folder
        }
        post(
                "/v1/studio/templates",
                "{\"id\": \"" + id + "\", \"model\": \"minilm-decider\", \"questions\": "
                        + "{\"spam\": {\"type\": \"noul\", \"instructions\": "
                        + "\"Is this mail unsolicited bulk mail (spam), an advert or a scam?\"}}}");
        ArrayNode examples = JSON.createArrayNode();
        calibration.forEach(mail -> example(examples, mail, "calibration"));
        test.forEach(mail -> example(examples, mail, "test"));
        for (int start = 0; start < examples.size(); start += 5000) {
            ObjectNode body = JSON.createObjectNode();
            ArrayNode chunk = body.putArray("examples");
            for (int i = start; i < Math.min(examples.size(), start + 5000); i++) {
                chunk.add(examples.get(i));
            }
            post("/v1/studio/templates/" + id + "/examples/import", body.toString());
        }
    }

    static void example(ArrayNode examples, Corpora.Item mail, String split) {
        String text = mail.text().length() > 1500 ? mail.text().substring(0, 1500) : mail.text();
        ObjectNode example = examples.addObject().put("state", text).put("split", split);
        example.putObject("expected").put("spam", mail.label().equals("spam") ? "yes" : "no");
    }

    /** Two fits of the same labels: the first embeds, the second reads the cache; seconds of each. */
    static double[] fitTwice(String template) throws Exception {
        double[] seconds = new double[2];
        for (int i = 0; i < 2; i++) {
            long started = System.nanoTime();
            String id = post("/v1/studio/templates/" + template + "/fit", "{}")
                    .path("id")
                    .asText();
            JsonNode fit = waitFor("/v1/studio/fits/" + id);
            seconds[i] = (System.nanoTime() - started) / 1e9;
            if (i == 1) {
                System.out.println("  head facts: " + fit.at("/heads/spam/facts"));
            }
        }
        return seconds;
    }

    /** Decisions on the zero-shot and the latest (fitted) version, interleaved, after a warm-up. */
    static void latency(String template) throws Exception {
        List<Corpora.Item> mails = Corpora.slice(Corpora.part(Corpora.spamAssassin(), Corpora.Part.TEST), 300);
        var zeroShot = new ArrayList<Double>();
        var fitted = new ArrayList<Double>();
        for (int i = 0; i < mails.size(); i++) {
            String text = mails.get(i).text();
            ObjectNode body =
                    JSON.createObjectNode().put("state", text.length() > 1500 ? text.substring(0, 1500) : text);
            body.put("store", "none");
            for (String version : List.of("1", "latest")) {
                body.put("template", template + "@" + version);
                long started = System.nanoTime();
                post("/v1/studio/decisions", body.toString());
                double ms = (System.nanoTime() - started) / 1e6;
                if (i >= 50) {
                    (version.equals("1") ? zeroShot : fitted).add(ms);
                }
            }
        }
        System.out.printf(
                "decision latency over %d mails: zero-shot p50 %.1f ms p90 %.1f ms; fitted p50 %.1f ms p90 %.1f ms%n",
                zeroShot.size(), pct(zeroShot, 50), pct(zeroShot, 90), pct(fitted, 50), pct(fitted, 90));
    }

    static void quality(String template, String versions) throws Exception {
        String id = post(
                        "/v1/studio/evals",
                        "{\"template\": \"" + template + "\", \"versions\": " + versions + ", "
                                + "\"examples\": {\"split\": \"test\"}, \"store\": \"none\"}")
                .path("id")
                .asText();
        JsonNode eval = waitFor("/v1/studio/evals/" + id);
        for (JsonNode target : eval.at("/results/targets")) {
            JsonNode spam = target.at("/questions/spam");
            System.out.printf(
                    "version %d on %d held-out mails: accuracy %s, ECE %s, log loss %s%n",
                    target.path("version").asInt(),
                    spam.path("n").asInt(),
                    spam.path("accuracy"),
                    spam.path("ece"),
                    spam.path("log_loss"));
        }
    }

    static double pct(List<Double> values, int p) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        return sorted[Math.min(sorted.length - 1, sorted.length * p / 100)];
    }

    static JsonNode waitFor(String path) throws Exception {
        while (true) {
            JsonNode job = get(path + "?wait=30");
            String status = job.path("status").asText();
            if (!status.equals("queued") && !status.equals("in_progress")) {
                if (!status.equals("completed")) {
                    throw new IllegalStateException(job.toString());
                }
                return job;
            }
        }
    }

    static JsonNode post(String path, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(base + path))
                .header("content-type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        var response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 300) {
            throw new IllegalStateException(path + ": " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    static JsonNode get(String path) throws Exception {
        var response = HTTP.send(
                HttpRequest.newBuilder(URI.create(base + path)).build(), HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(response.body());
    }
}
