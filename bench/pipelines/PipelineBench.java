package pipelines;

import static common.JsonCalls.send;

import com.fasterxml.jackson.databind.JsonNode;
import common.CommitRate;
import common.InProcessServer;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * The pipeline engine's speed: step transitions per second (a step going pending → running → completed is two) for
 * a 100-step linear pipeline and a 100-wide fan-out of set_output steps, beside the raw commit rate of the same
 * database measured in the same run (one-row transactions, one after another: the limit a step's own commits run
 * against), and on SQLite the writes a step takes (from the server's metrics: how often it took its one writer
 * connection); then 1,000 runs parked in wait_until, with the server's threads and heap before and after. Run with the
 * Arbor jar: java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar bench/pipelines/PipelineBench.java
 * [runs of each shape, default 5] [jdbc:postgresql://... for PostgreSQL]
 */
public class PipelineBench {
    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final int STEPS = 100;
    static final int PARKED = 1_000;
    static final Pattern WRITER_USES = Pattern.compile(
            "(?m)^hikaricp_connections_usage_seconds_count\\{[^}]*pool=\"arbor-sqlite-writer\"[^}]*} ([0-9.eE+]+)$");

    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        String postgres = args.length > 1 ? args[1] : null;
        try (var server = InProcessServer.start("pipeline", postgres, Map.of())) {
            String base = server.base();
            String jdbc = server.jdbc();
            String linear = create(
                    base,
                    "linear",
                    IntStream.range(0, STEPS)
                            .mapToObj(i -> step(i, i == 0 ? "[]" : "[\"s" + (i - 1) + "\"]"))
                            .toList());
            var fan = new ArrayList<String>();
            fan.add(step(0, "[]"));
            IntStream.range(1, STEPS + 1).forEach(i -> fan.add(step(i, "[\"s0\"]")));
            String fanOut = create(base, "fan-out", fan);
            run(base, linear); // warm-up of both shapes: class loading, JIT, the engine's first polls
            run(base, fanOut);
            System.out.printf(
                    "database: %s, %d runs of each shape%n", postgres != null ? "PostgreSQL" : "SQLite", runs);
            for (int round = 0; round < runs; round++) {
                double commits = CommitRate.measure(jdbc);
                Rate linearRate = transitions(base, linear, STEPS);
                Rate fanRate = transitions(base, fanOut, STEPS + 1);
                System.out.printf(
                        "round %d: raw commits %,.0f/s | linear %,.0f transitions/s (%.3f of commits%s) | "
                                + "fan-out %,.0f transitions/s (%.3f of commits%s)%n",
                        round + 1,
                        commits,
                        linearRate.perSecond(),
                        linearRate.perSecond() / commits,
                        linearRate.writes(),
                        fanRate.perSecond(),
                        fanRate.perSecond() / commits,
                        fanRate.writes());
            }
            parked(base);
        }
    }

    static String step(int i, String dependsOn) {
        return "{\"id\": \"s" + i + "\", \"action\": \"set_output\", \"depends_on\": " + dependsOn
                + ", \"params\": {\"key\": \"v\", \"value\": " + i + "}}";
    }

    /**
     * A run's transitions per second, and on SQLite its writes per step: the times the server took its one writer
     * connection (each a transaction: ours and the engine's, its polls too), which no load on the machine changes.
     */
    record Rate(double perSecond, double writesPerStep) {
        String writes() {
            return Double.isNaN(writesPerStep) ? "" : String.format(", %.2f writes a step", writesPerStep);
        }
    }

    /** Transitions per second of one run: two per step, from the POST to the run's end. */
    static Rate transitions(String base, String pipeline, int steps) throws Exception {
        double writesBefore = writerUses(base);
        long start = System.nanoTime();
        run(base, pipeline);
        double rate = 2.0 * steps / ((System.nanoTime() - start) / 1e9);
        return new Rate(rate, (writerUses(base) - writesBefore) / steps);
    }

    /** How often the server has taken SQLite's writer connection (NaN on PostgreSQL, whose pool also reads). */
    static double writerUses(String base) throws Exception {
        String metrics = HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Matcher uses = WRITER_USES.matcher(metrics);
        return uses.find() ? Double.parseDouble(uses.group(1)) : Double.NaN;
    }

    static void run(String base, String pipeline) throws Exception {
        String id = send("POST", base + "/pipelines/" + pipeline + "/runs", "{}")
                .path("id")
                .asText();
        while (true) {
            String status =
                    send("GET", base + "/runs/" + id, null).path("status").asText();
            if (!status.equals("queued") && !status.equals("running")) {
                if (!status.equals("completed")) {
                    throw new IllegalStateException("run " + id + " ended " + status);
                }
                return;
            }
            Thread.sleep(5);
        }
    }

    /** 1,000 runs waiting for a condition an hour away: threads and heap before they start and once all wait. */
    static void parked(String base) throws Exception {
        String pipeline = create(
                base,
                "parked",
                List.of(
                        "{\"id\": \"wait\", \"action\": \"wait_until\", \"params\": "
                                + "{\"condition\": \"now > params.at\", \"poll_interval_seconds\": 600, \"timeout_seconds\": 3600}}"),
                "[{\"name\": \"at\", \"type\": \"integer\", \"required\": true}]");
        var threads = ManagementFactory.getThreadMXBean();
        System.gc();
        long heapBefore = heapUsed();
        int threadsBefore = threads.getThreadCount();
        long at = System.currentTimeMillis() / 1000 + 3600;
        var ids = new ArrayList<String>();
        long start = System.nanoTime();
        for (int i = 0; i < PARKED; i++) {
            ids.add(send("POST", base + "/pipelines/" + pipeline + "/runs", "{\"params\": {\"at\": " + at + "}}")
                    .path("id")
                    .asText());
        }
        for (String id : ids) {
            while (!send("GET", base + "/runs/" + id, null)
                    .at("/steps/0/status")
                    .asText()
                    .equals("waiting")) {
                Thread.sleep(20);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.gc();
        Thread.sleep(500);
        System.gc();
        System.out.printf(
                "parked %,d runs in wait_until in %.1f s: threads %d before, %d after; heap after GC "
                        + "%.1f MB before, %.1f MB after (%.1f KB a parked run)%n",
                PARKED,
                seconds,
                threadsBefore,
                threads.getThreadCount(),
                heapBefore / 1e6,
                heapUsed() / 1e6,
                (heapUsed() - heapBefore) / 1e3 / PARKED);
    }

    static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static String create(String base, String name, List<String> steps) throws Exception {
        return create(base, name, steps, "[]");
    }

    static String create(String base, String name, List<String> steps, String parameters) throws Exception {
        String body = "{\"name\": \"" + name + "-" + System.nanoTime() + "\", \"parameters\": " + parameters
                + ", \"steps\": [" + String.join(",", steps) + "]}";
        JsonNode created = send("POST", base + "/pipelines", body);
        if (!created.has("id")) {
            throw new IllegalStateException(created.toString());
        }
        return created.path("id").asText();
    }
}
