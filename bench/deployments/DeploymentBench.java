package deployments;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import common.InProcessServer;
import common.KeepAliveConnection;
import dev.arbor.models.Models;
import dev.arbor.models.engines.Engine;
import dev.arbor.models.engines.ReplicaSet;
import dev.arbor.models.runtime.ModelRuntime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local deployment of the bundled embedding model (minilm-decider) against the same engine called raw in this
 * process: first the time from the deployment's POST to its first answered /v1/embeddings, for fresh one-replica
 * deployments; then one deployment at 1, 2 and 4 replicas, each at 1, 4 and 16 callers, raw and through an in-process
 * Arbor's POST /v1/embeddings in alternating turns; then where the endpoint's time goes at one caller (raw, a replica
 * set called directly, the endpoint, GET /health). Run with the Arbor jar on the class path:
 * java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar bench/deployments/DeploymentBench.java
 * [seconds a turn] [turns] [warm-up seconds] [deploy trials]
 */
public class DeploymentBench {
    static final String MODEL = "minilm-decider";
    /** ARBOR_ADMIN_TOKEN: compared in memory, so the figures leave out the database lookup of an API token. */
    static final String TOKEN = "arb_deployment_bench_admin";

    static final int[] REPLICAS = {1, 2, 4};
    static final int[] CALLERS = {1, 4, 16};
    /** After a deploy or a scale, calls on the endpoint for this many warm-ups' time before any row is measured. */
    static final int REPLICA_WARM_UP = 3;

    static final String[] INPUTS = {
        "I was charged twice for my subscription this month and need one of the payments refunded.",
        "The dashboard shows a 500 error whenever I open the reports page since this morning.",
        "We are a 400-person company interested in the enterprise plan. Can we get a quote and a demo?",
        "I can't log in: the password reset email never arrives and my account seems locked."
    };
    static final ObjectMapper JSON = new ObjectMapper();
    /** Calls that did not answer 200: counted, left out of the latencies. */
    static final AtomicInteger FAILED = new AtomicInteger();

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int warmSeconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int trials = args.length > 3 ? Integer.parseInt(args[3]) : 3;
        if (!(Engine.load("embedding", Map.of()) instanceof Engine.Embedder raw)) {
            throw new IllegalStateException("the embedding engine does not embed");
        }
        try (var server = InProcessServer.start("deployment", null, Map.of("ARBOR_ADMIN_TOKEN", TOKEN))) {
            var admin = new Admin(server.app().port());
            admin.project = admin.send("POST", "/projects", "{\"name\": \"bench\"}", 201)
                    .path("id")
                    .asText();
            System.out.printf("load average at start: %s%n", loadAverage());
            firstAnswers(admin, trials);
            // a replica of the same model called from this process, for the worker hop alone (see interleaved)
            try (var runtime = new ModelRuntime(
                            new Models(false),
                            server.data().resolve("direct"),
                            ModelRuntime.Settings.DEFAULT,
                            new SimpleMeterRegistry());
                    ReplicaSet direct = runtime.replicas(MODEL, "bench-direct", 1, ReplicaSet.Listener.NONE)) {
                throughput(admin, raw, direct, seconds, turns, warmSeconds);
            }
            System.out.printf("load average at the end: %s%n", loadAverage());
        }
    }

    /** Deploy Model to the first answer: a fresh one-replica deployment each time, deleted before the next. */
    static void firstAnswers(Admin admin, int trials) throws Exception {
        System.out.println();
        System.out.println("| trial | POST to running s | running to first answer ms | POST to first answer s |");
        System.out.println("|---|---|---|---|");
        for (int trial = 1; trial <= trials; trial++) {
            long start = System.nanoTime();
            String id = admin.deploy("first-answer-" + trial, 1);
            JsonNode running = admin.awaitRunning(id, 1);
            long ready = System.nanoTime();
            try (var connection = admin.connect()) {
                int status = embeddings(connection, admin, "first-answer-" + trial, 0);
                if (status != 200) {
                    throw new IllegalStateException("the first call answered " + status);
                }
            }
            long answered = System.nanoTime();
            System.out.printf(
                    "| %d | %.2f | %.1f | %.2f |%n",
                    trial, (ready - start) / 1e9, (answered - ready) / 1e6, (answered - start) / 1e9);
            admin.delete(id, running);
        }
    }

    /** One deployment scaled 1, 2, 4; at each count every caller row alternates raw and endpoint turns. */
    static void throughput(Admin admin, Engine.Embedder raw, ReplicaSet direct, int seconds, int turns, int warmSeconds)
            throws Exception {
        String name = "bench-embed";
        String id = admin.deploy(name, REPLICAS[0]);
        JsonNode running = admin.awaitRunning(id, REPLICAS[0]);
        Way rawWay = () -> i -> raw.embed(List.of(INPUTS[i % INPUTS.length]));
        Way endpoint = http(admin, (connection, i) -> embeddings(connection, admin, name, i));
        Way set = () -> i -> direct.embed(List.of(INPUTS[i % INPUTS.length]));
        Way health = http(
                admin,
                (connection, i) ->
                        connection.send("GET", "/health", null, admin.headers()).status());
        Way[] stageWays = {rawWay, set, endpoint, health};
        var stages = new Spread[REPLICAS.length][];
        System.out.println();
        System.out.printf(
                "%d turns of %d s each way per row after %d s of warm-up each (and %d s of calls on the endpoint after"
                        + " each deploy or scale); latencies in ms; CPU: the machine's busy share during that way's"
                        + " turns%n",
                turns, seconds, warmSeconds, REPLICA_WARM_UP * warmSeconds);
        System.out.println(
                "| replicas | callers | raw req/s | raw p50 | raw p99 | raw CPU | endpoint req/s | endpoint p50"
                        + " | endpoint p99 | endpoint CPU | endpoint/raw req/s | failed |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|");
        var perSecond = new double[REPLICAS.length][CALLERS.length];
        var rawPerSecond = new double[REPLICAS.length][CALLERS.length];
        for (int r = 0; r < REPLICAS.length; r++) {
            if (r > 0) {
                long start = System.nanoTime();
                admin.send("PATCH", "/deployments/" + id, "{\"replicas\": " + REPLICAS[r] + "}", 202);
                running = admin.awaitRunning(id, REPLICAS[r]);
                System.out.printf(
                        "(scaled %d -> %d replicas in %.1f s)%n",
                        REPLICAS[r - 1], REPLICAS[r], (System.nanoTime() - start) / 1e9);
            }
            // new replicas warm their engine and message code as they load; this compiles the rest of both
            // processes' path (a few thousand calls a replica) before any figure is taken
            calls(4 * REPLICAS[r], REPLICA_WARM_UP * warmSeconds, endpoint, new long[2]);
            if (r == 0) {
                calls(4, REPLICA_WARM_UP * warmSeconds, set, new long[2]);
            }
            for (int c = 0; c < CALLERS.length; c++) {
                FAILED.set(0);
                Result[] both = alternate(CALLERS[c], seconds, turns, warmSeconds, rawWay, endpoint);
                Result a = both[0];
                Result b = both[1];
                perSecond[r][c] = b.perSecond;
                rawPerSecond[r][c] = a.perSecond;
                System.out.printf(
                        "| %d | %d | %.0f | %.2f | %.2f | %.0f%% | %.0f | %.2f | %.2f | %.0f%% | %.2f | %d |%n",
                        REPLICAS[r],
                        CALLERS[c],
                        a.perSecond,
                        a.p50,
                        a.p99,
                        100 * a.busy,
                        b.perSecond,
                        b.p50,
                        b.p99,
                        100 * b.busy,
                        b.perSecond / a.perSecond,
                        FAILED.get());
            }
            interleaved(warmSeconds, stageWays);
            stages[r] = interleaved(2 * turns * seconds, stageWays);
        }
        System.out.println();
        System.out.println("Where the time goes at 1 caller: raw engine, replica set called directly, endpoint and GET"
                + " /health, one call of each in turn (ms; p10 / p50):");
        System.out.println("| replicas | raw | set, direct | endpoint | /health | worker hop (set - raw) | server path"
                + " (endpoint - set - /health) | overhead (endpoint - raw) |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (int r = 0; r < REPLICAS.length; r++) {
            Spread[] w = stages[r];
            System.out.printf(
                    "| %d | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %.2f /"
                            + " %.2f |%n",
                    REPLICAS[r],
                    w[0].p10,
                    w[0].p50,
                    w[1].p10,
                    w[1].p50,
                    w[2].p10,
                    w[2].p50,
                    w[3].p10,
                    w[3].p50,
                    w[1].p10 - w[0].p10,
                    w[1].p50 - w[0].p50,
                    w[2].p10 - w[1].p10 - w[3].p10,
                    w[2].p50 - w[1].p50 - w[3].p50,
                    w[2].p10 - w[0].p10,
                    w[2].p50 - w[0].p50);
        }
        System.out.println();
        // the replica counts run minutes apart, so the machine's load moves between them; each endpoint rate over
        // the raw rate of its own row takes that out
        System.out.println(
                "| callers | 2 replicas / 1 | 4 replicas / 1 | 2 / 1, each over its raw | 4 / 1, each over its raw |");
        System.out.println("|---|---|---|---|---|");
        for (int c = 0; c < CALLERS.length; c++) {
            double one = perSecond[0][c] / rawPerSecond[0][c];
            System.out.printf(
                    "| %d | %.2f | %.2f | %.2f | %.2f |%n",
                    CALLERS[c],
                    perSecond[1][c] / perSecond[0][c],
                    perSecond[2][c] / perSecond[0][c],
                    perSecond[1][c] / rawPerSecond[1][c] / one,
                    perSecond[2][c] / rawPerSecond[2][c] / one);
        }
        admin.delete(id, running);
    }

    /** A way's latencies at one caller, in ms. */
    record Spread(double p10, double p50) {}

    /**
     * One caller calling each way in turn, one call each, for {@code seconds}: on a shared machine whose load moves
     * from second to second, every way then meets the same moments, which turns of seconds each do not give. The
     * differences of their percentiles are the stages of a call.
     */
    static Spread[] interleaved(int seconds, Way... ways) throws Exception {
        var sessions = new ArrayList<Session>();
        var latencies = new ArrayList<List<Long>>();
        for (Way way : ways) {
            sessions.add(way.open());
            latencies.add(new ArrayList<>());
        }
        try {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            for (int i = 0; System.nanoTime() < end; i++) {
                for (int w = 0; w < ways.length; w++) {
                    long start = System.nanoTime();
                    sessions.get(w).call(i);
                    latencies.get(w).add(System.nanoTime() - start);
                }
            }
        } finally {
            sessions.forEach(Session::close);
        }
        var spreads = new Spread[ways.length];
        for (int w = 0; w < ways.length; w++) {
            long[] sorted = latencies.get(w).stream()
                    .mapToLong(Long::longValue)
                    .sorted()
                    .toArray();
            spreads[w] = new Spread(sorted[sorted.length / 10] / 1e6, sorted[sorted.length / 2] / 1e6);
        }
        return spreads;
    }

    /** One call on a caller's connection: its status. */
    /** POST /v1/embeddings of one input, base64 as the official OpenAI clients ask by default: its status. */
    static int embeddings(KeepAliveConnection connection, Admin admin, String deployment, int i) throws IOException {
        return connection
                .send(
                        "POST",
                        "/v1/embeddings",
                        "{\"model\": \"" + deployment + "\", \"encoding_format\": \"base64\", \"input\": \""
                                + INPUTS[i % INPUTS.length] + "\"}",
                        admin.headers())
                .status();
    }

    interface HttpCall {
        int call(KeepAliveConnection connection, int i) throws IOException;
    }

    /** Callers that each hold a keep-alive connection for the turn; an answer other than 200 counts as failed. */
    static Way http(Admin admin, HttpCall call) {
        return () -> {
            var connection = admin.connect();
            return new Session() {
                @Override
                public void call(int i) throws IOException {
                    if (call.call(connection, i) != 200) {
                        FAILED.incrementAndGet();
                    }
                }

                @Override
                public void close() {
                    connection.close();
                }
            };
        };
    }

    /** One caller's calls, on what it holds for the turn (a connection). */
    interface Session extends AutoCloseable {
        void call(int i) throws Exception;

        @Override
        default void close() {}
    }

    /** A way of embedding: opens a caller's session, outside the timed calls. */
    interface Way {
        Session open() throws IOException;
    }

    /** @param busy the machine's busy share of CPU time during the turns (every process, other builds included) */
    record Result(double perSecond, double p50, double p99, double busy) {}

    /** The ways in alternating turns, after a warm-up of each, so that busy moments fall on all alike. */
    static Result[] alternate(int callers, int seconds, int turns, int warmSeconds, Way... ways) throws Exception {
        var latencies = new ArrayList<List<Long>>();
        var cpu = new ArrayList<long[]>();
        for (Way way : ways) {
            calls(Math.max(callers, 4), warmSeconds, way, new long[2]);
            latencies.add(new ArrayList<>());
            cpu.add(new long[2]);
        }
        for (int turn = 0; turn < turns; turn++) {
            for (int w = 0; w < ways.length; w++) {
                latencies.get(w).addAll(calls(callers, seconds, ways[w], cpu.get(w)));
            }
        }
        var results = new Result[ways.length];
        for (int w = 0; w < ways.length; w++) {
            results[w] = result(latencies.get(w), seconds * turns, cpu.get(w));
        }
        return results;
    }

    static Result result(List<Long> latencies, int seconds, long[] cpu) {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(
                sorted.length / (double) seconds,
                sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6,
                cpu[0] / (double) cpu[1]);
    }

    /** {@code callers} sessions calling for {@code seconds}; adds the machine's busy and total CPU ticks to cpu. */
    static List<Long> calls(int callers, int seconds, Way way, long[] cpu) throws Exception {
        var sessions = new ArrayList<Session>();
        for (int c = 0; c < callers; c++) {
            sessions.add(way.open());
        }
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            long[] before = cpuTicks();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            var futures = new ArrayList<Future<List<Long>>>();
            for (int c = 0; c < callers; c++) {
                Session session = sessions.get(c);
                int offset = c;
                futures.add(pool.submit((Callable<List<Long>>) () -> {
                    var latencies = new ArrayList<Long>();
                    for (int i = offset; System.nanoTime() < end; i += callers) {
                        long start = System.nanoTime();
                        session.call(i);
                        latencies.add(System.nanoTime() - start);
                    }
                    return latencies;
                }));
            }
            var all = new ArrayList<Long>();
            for (var future : futures) {
                all.addAll(future.get());
            }
            long[] after = cpuTicks();
            cpu[0] += after[0] - before[0];
            cpu[1] += after[1] - before[1];
            return all;
        } finally {
            sessions.forEach(Session::close);
        }
    }

    /** The machine's busy and total CPU ticks from /proc/stat (idle, iowait and steal count as not busy). */
    static long[] cpuTicks() throws IOException {
        String[] fields =
                Files.readAllLines(Path.of("/proc/stat")).getFirst().trim().split("\\s+");
        long total = 0;
        for (int f = 1; f <= 8; f++) {
            total += Long.parseLong(fields[f]);
        }
        long notBusy = Long.parseLong(fields[4]) + Long.parseLong(fields[5]) + Long.parseLong(fields[8]);
        return new long[] {total - notBusy, total};
    }

    static String loadAverage() throws IOException {
        return Files.readString(Path.of("/proc/loadavg")).trim();
    }

    /** The admin's calls on the deployments API, in one project, one connection per call. */
    static final class Admin {
        final int port;
        String project = "";

        Admin(int port) {
            this.port = port;
        }

        /** A connection of its own; a read waits up to two minutes, as a deployment's first answer may. */
        KeepAliveConnection connect() throws IOException {
            return new KeepAliveConnection(port, 120_000);
        }

        /** The admin token, and the project once there is one. */
        Map<String, String> headers() {
            return project.isEmpty()
                    ? Map.of("Authorization", "Bearer " + TOKEN)
                    : Map.of("Authorization", "Bearer " + TOKEN, "X-Project-Id", project);
        }

        JsonNode send(String method, String path, String body, int expected) throws IOException {
            try (var connection = connect()) {
                var reply = connection.send(method, path, body, headers());
                int status = reply.status();
                String answer = reply.body();
                if (status != expected) {
                    throw new IllegalStateException(method + " " + path + " answered " + status + ": " + answer);
                }
                return answer.isEmpty() ? JSON.createObjectNode() : JSON.readTree(answer);
            }
        }

        String deploy(String name, int replicas) throws IOException {
            return send(
                            "POST",
                            "/deployments",
                            "{\"name\": \"" + name + "\", \"model_id\": \"" + MODEL + "\", \"replicas\": " + replicas
                                    + "}",
                            202)
                    .path("id")
                    .asText();
        }

        /** Waits (the API's own long poll) until the deployment runs with {@code replicas} ready. */
        JsonNode awaitRunning(String id, int replicas) throws IOException {
            long deadline = System.nanoTime() + 300_000_000_000L;
            while (System.nanoTime() < deadline) {
                JsonNode now = send("GET", "/deployments/" + id + "?wait=60", null, 200);
                String status = now.path("status").asText();
                if (status.equals("failed")) {
                    throw new IllegalStateException("the deployment failed: " + now);
                }
                if (status.equals("running") && now.path("ready_replicas").asInt() == replicas) {
                    return now;
                }
            }
            throw new IllegalStateException("the deployment " + id + " did not run in 300 s");
        }

        /** Deletes a deployment and waits until its replicas' processes are gone, so they take no CPU after. */
        void delete(String id, JsonNode deployment) throws Exception {
            send("DELETE", "/deployments/" + id, null, 200);
            for (JsonNode replica : deployment.path("replicas_detail")) {
                var process = ProcessHandle.of(replica.path("pid").asLong());
                if (process.isPresent()) {
                    process.get().onExit().get();
                }
            }
        }
    }
}
