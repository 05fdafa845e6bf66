package load;

import common.KeepAliveConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Load and soak: the shaded jar started as a user runs it (its own JVM, SQLite in a temporary folder, or PostgreSQL
 * with --database-url), then a mix of studio and admin routes driven over plain keep-alive HTTP/1.1 connections, one
 * socket per virtual thread, so that the number of connections is exactly the number of callers.
 *
 * <pre>
 * java bench/load/LoadSoakBench.java load [--connections 1000] [--seconds 60]
 * java bench/load/LoadSoakBench.java soak [--minutes 3] [--rate 50] [--connections 32]
 * common: [--jar target/arbor.jar] [--database-url jdbc:postgresql://...] [--out target/load]
 *         [--jvm "server JVM flags"] [--server-env NAME=value,NAME=value]
 * </pre>
 *
 * load: every connection sends its next request as soon as the last is answered; counts connections established
 * (ss) and the server's open descriptors mid-run. soak: the same mix at a fixed total rate, sampling the server's
 * RSS (and its model workers'), and heap used from /metrics, every 10 s into a CSV; memory is judged on each minute's
 * lowest heap (the floor after the collections of that minute) and RSS.
 */
public class LoadSoakBench {
    static final Pattern CODE = Pattern.compile("\"code\"\\s*:\\s*\"([a-z_]+)\"");
    static final Pattern DECISION_ID = Pattern.compile("\"id\"\\s*:\\s*\"(dec_[A-Za-z0-9]+)\"");
    static final Pattern HEAP = Pattern.compile("^jvm_memory_used_bytes\\{[^}]*area=\"heap\"[^}]*\\}\\s+(\\S+)$");
    static final String[] MESSAGES = {
        "We were charged twice for our March invoice and need one of the payments refunded.",
        "The dashboard shows a 500 error whenever I open the reports page since this morning.",
        "We are a 400-person company interested in the enterprise plan. Can we get a quote?",
        "I can't log in: the password reset email never arrives and my account seems locked."
    };
    /** Share of each route class in the mix, in percent. */
    static final Map<String, Integer> MIX =
            Map.of("health", 10, "decision", 15, "history", 20, "template", 15, "admin_read", 35, "write", 5);

    record Options(
            String mode,
            int connections,
            int seconds,
            double rate,
            Path jar,
            String databaseUrl,
            Path out,
            List<String> jvmFlags,
            Map<String, String> serverEnv) {
        static Options parse(String[] args) {
            if (args.length == 0 || !(args[0].equals("load") || args[0].equals("soak"))) {
                throw new IllegalArgumentException("usage: load|soak [--flag value ...] (see the class comment)");
            }
            var flags = new HashMap<String, String>();
            for (int i = 1; i + 1 < args.length; i += 2) {
                flags.put(args[i].replaceFirst("^--", ""), args[i + 1]);
            }
            boolean load = args[0].equals("load");
            int seconds = flags.containsKey("minutes")
                    ? (int) Math.round(Double.parseDouble(flags.get("minutes")) * 60)
                    : Integer.parseInt(flags.getOrDefault("seconds", load ? "60" : "180"));
            return new Options(
                    args[0],
                    Integer.parseInt(flags.getOrDefault("connections", load ? "1000" : "32")),
                    seconds,
                    Double.parseDouble(flags.getOrDefault("rate", "50")),
                    Path.of(flags.getOrDefault("jar", "target/arbor.jar")),
                    flags.get("database-url"),
                    Path.of(flags.getOrDefault("out", "target/load")),
                    flags.containsKey("jvm") ? List.of(flags.get("jvm").split(" ")) : List.of(),
                    flags.containsKey("server-env")
                            ? Arrays.stream(flags.get("server-env").split(","))
                                    .map(pair -> pair.split("=", 2))
                                    .collect(Collectors.toMap(pair -> pair[0], pair -> pair[1]))
                            : Map.of());
        }
    }

    /** The server under test: its JVM, its port, the admin token it was started with and a project to work in. */
    record Server(Process process, int port, String token, Path data) {}

    static final Map<String, ConcurrentLinkedQueue<Long>> LATENCIES = new ConcurrentHashMap<>();
    static final Map<String, Failures> ERRORS = new ConcurrentHashMap<>();
    /** When the measured run began, for the times of errors. */
    static volatile long runStarted = System.nanoTime();

    /** How often one kind of error happened, and when first and last (seconds into the run). */
    record Failures(LongAdder count, AtomicLong firstMillis, AtomicLong lastMillis) {
        void add() {
            long at = (System.nanoTime() - runStarted) / 1_000_000;
            count.increment();
            firstMillis.accumulateAndGet(at, Math::min);
            lastMillis.accumulateAndGet(at, Math::max);
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT, "%d (%.1f–%.1f s)", count.sum(), firstMillis.get() / 1e3, lastMillis.get() / 1e3);
        }
    }

    static final AtomicReferenceArray<String> DECISIONS = new AtomicReferenceArray<>(256);
    static final AtomicInteger DECISION_SLOT = new AtomicInteger();
    static final AtomicLong WRITES = new AtomicLong();
    /** Idempotency keys whose first request has been answered, for replays. */
    static final AtomicLongArray WRITTEN = new AtomicLongArray(64);

    static volatile String project;

    public static void main(String[] args) throws Exception {
        var options = Options.parse(args);
        Files.createDirectories(options.out());
        Server server = start(options);
        try {
            setUp(server);
            if (options.mode().equals("load")) {
                load(server, options);
            } else {
                soak(server, options);
            }
        } finally {
            server.process().destroy();
            server.process().waitFor();
        }
    }

    static Server start(Options options) throws Exception {
        int port;
        try (var probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path data = Files.createTempDirectory("arbor-load-");
        String token = "load-" + UUID.randomUUID();
        var command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+ExitOnOutOfMemoryError"));
        command.addAll(options.jvmFlags());
        command.addAll(List.of(
                "-jar", options.jar().toString(), "serve", "--port", String.valueOf(port), "--data", data.toString()));
        var builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(options.out()
                        .resolve("server-" + options.mode() + ".log")
                        .toFile());
        builder.environment().put("ARBOR_ADMIN_TOKEN", token);
        // every caller here comes from loopback: the per-address cap (256 by default) must admit them all
        builder.environment().put("ARBOR_MAX_CONNECTIONS_PER_ADDRESS", String.valueOf(options.connections() + 64));
        builder.environment().putAll(options.serverEnv());
        if (options.databaseUrl() != null) {
            builder.environment().put("ARBOR_DATABASE_URL", options.databaseUrl());
        }
        var server = new Server(builder.start(), port, token, data);
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            try (var connection = new KeepAliveConnection(port, 30_000)) {
                if (connection.send("GET", "/health", null, Map.of()).status() == 200) {
                    break;
                }
            } catch (IOException notYet) {
                if (!server.process().isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("the server did not start: see " + options.out(), notYet);
                }
                Thread.sleep(200);
            }
        }
        System.out.printf(
                "server pid %d on port %d (%s), data %s%n",
                server.process().pid(), port, options.databaseUrl() != null ? "PostgreSQL" : "SQLite", data);
        return server;
    }

    /** A project for the admin routes, and a first decision so that the model is loaded before the clock starts. */
    static void setUp(Server server) throws Exception {
        try (var connection = new KeepAliveConnection(server.port(), 30_000)) {
            var created = connection.send(
                    "POST", "/projects", "{\"name\": \"load\"}", Map.of("Authorization", "Bearer " + server.token()));
            var id = Pattern.compile("\"id\"\\s*:\\s*\"(prj_[A-Za-z0-9]+)\"").matcher(created.body());
            if (created.status() != 201 || !id.find()) {
                throw new IllegalStateException("project: " + created.status() + " " + created.body());
            }
            project = id.group(1);
            long started = System.nanoTime();
            var decision = connection.send("POST", "/v1/studio/decisions", decisionBody(0), Map.of());
            if (decision.status() / 100 != 2) {
                throw new IllegalStateException("decision: " + decision.status() + " " + decision.body());
            }
            System.out.printf("first decision (model load) %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
    }

    static String decisionBody(int i) {
        return "{\"template\": \"builtin/support\", \"state\": \"" + MESSAGES[i % MESSAGES.length] + " (" + i + ")\"}";
    }

    /** One request of the mix, chosen at random by its share; its latency or its error counted under its class. */
    static void oneRequest(KeepAliveConnection connection, Server server, int i) throws IOException {
        var random = ThreadLocalRandom.current();
        int pick = random.nextInt(100);
        String kind = null;
        for (var entry : new TreeMap<>(MIX).entrySet()) {
            pick -= entry.getValue();
            if (pick < 0) {
                kind = entry.getKey();
                break;
            }
        }
        var admin = Map.of("Authorization", "Bearer " + server.token(), "X-Project-Id", project);
        long key = 0;
        long started = System.nanoTime();
        KeepAliveConnection.Response response = switch (kind) {
            case "health" -> connection.send("GET", "/health", null, Map.of());
            case "decision" -> connection.send("POST", "/v1/studio/decisions", decisionBody(i), Map.of());
            case "history" -> {
                String id = DECISIONS.get(random.nextInt(DECISIONS.length()));
                yield connection.send(
                        "GET",
                        id != null && random.nextBoolean()
                                ? "/v1/studio/decisions/" + id
                                : "/v1/studio/decisions?limit=20",
                        null,
                        Map.of());
            }
            case "template" ->
                connection.send(
                        "GET",
                        random.nextBoolean() ? "/v1/studio/templates/builtin/support" : "/v1/studio/templates?limit=20",
                        null,
                        Map.of());
            case "admin_read" ->
                connection.send(
                        "GET",
                        new String[] {"/projects", "/pipelines", "/routers", "/clusters"}[random.nextInt(4)],
                        null,
                        admin);
            default -> {
                // a quarter of the writes retry a key already answered: the replay must answer as the first
                // did (a retry of a key still in flight is 409 idempotency_in_progress by design)
                long done = WRITTEN.get(random.nextInt(WRITTEN.length()));
                key = done > 0 && random.nextInt(4) == 0 ? done : WRITES.incrementAndGet();
                var headers = new HashMap<>(admin);
                headers.put("Idempotency-Key", "load-" + key);
                yield connection.send("POST", "/projects", "{\"name\": \"load-" + key + "\"}", headers);
            }
        };
        long elapsed = System.nanoTime() - started;
        if (response.status() / 100 != 2) {
            var code = CODE.matcher(response.body());
            error(kind + " " + response.status() + (code.find() ? " " + code.group(1) : ""));
            return;
        }
        LATENCIES.computeIfAbsent(kind, k -> new ConcurrentLinkedQueue<>()).add(elapsed);
        if (kind.equals("write")) {
            WRITTEN.set(random.nextInt(WRITTEN.length()), key);
        }
        if (kind.equals("decision")) {
            var id = DECISION_ID.matcher(response.body());
            if (id.find()) {
                DECISIONS.set(DECISION_SLOT.getAndIncrement() % DECISIONS.length(), id.group(1));
            }
        }
    }

    static void error(String kind) {
        ERRORS.computeIfAbsent(
                        kind,
                        k -> new Failures(
                                new LongAdder(), new AtomicLong(Long.MAX_VALUE), new AtomicLong(Long.MIN_VALUE)))
                .add();
    }

    /**
     * One caller: its own connection, requests until {@code end}, each started no earlier than its slot when
     * {@code interval} is positive. A connection that fails is counted and opened again.
     */
    static void caller(Server server, long end, long intervalNanos, int index) {
        long next = System.nanoTime();
        int i = index;
        KeepAliveConnection connection = null;
        int answered = 0; // on this connection: tells a failure to connect from one on a connection in use
        while (System.nanoTime() < end) {
            try {
                if (connection == null) {
                    connection = new KeepAliveConnection(server.port(), 30_000);
                    answered = 0;
                }
                oneRequest(connection, server, i++);
                answered++;
            } catch (IOException e) {
                String where =
                        connection == null ? "connecting" : answered == 0 ? "first request" : "reused connection";
                error("io "
                        + (e instanceof SocketTimeoutException
                                ? "timeout (30 s)"
                                : e.getClass().getSimpleName() + ": " + e.getMessage())
                        + " (" + where + ")");
                connection = close(connection);
            }
            if (intervalNanos > 0) {
                next += intervalNanos;
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    try {
                        Thread.sleep(Duration.ofNanos(wait));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        }
        close(connection);
    }

    static KeepAliveConnection close(KeepAliveConnection connection) {
        if (connection != null) {
            connection.close();
        }
        return null;
    }

    static void load(Server server, Options options) throws Exception {
        long started = System.nanoTime();
        runStarted = started;
        long end = started + options.seconds() * 1_000_000_000L;
        var snapshot = new AtomicReference<String>("");
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int c = 0; c < options.connections(); c++) {
                int index = c;
                pool.submit(() -> caller(server, end, 0, index));
                if (c % 100 == 99) {
                    Thread.sleep(100); // the connections open over a second, not in one burst at the accept queue
                }
            }
            Thread.sleep(Duration.ofNanos((end - System.nanoTime()) / 2));
            snapshot.set(String.format(
                    "mid-run: %d connections established to the port (ss), server: %d open descriptors of %s allowed,"
                            + " %s threads",
                    established(server.port()),
                    openDescriptors(server.process().pid()),
                    descriptorLimit(server.process().pid()),
                    status(server.process().pid(), "Threads")));
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(
                "%nload: %d connections for %d s against %s%n%s%n",
                options.connections(), options.seconds(), options.jar(), snapshot.get());
        summary(seconds);
        System.out.printf(
                "server RSS after the run: %.0f MB; load average %s%n",
                status(server.process().pid(), "VmRSS") / 1024.0,
                Files.readString(Path.of("/proc/loadavg")).trim());
    }

    static void soak(Server server, Options options) throws Exception {
        long started = System.nanoTime();
        runStarted = started;
        long end = started + options.seconds() * 1_000_000_000L;
        long interval = (long) (options.connections() * 1e9 / options.rate());
        Path csv = options.out().resolve("soak-" + Instant.now().toString().replace(':', '-') + ".csv");
        // seconds, server RSS MB, heap used MB, workers' RSS MB, requests, errors, load average
        var samples = new ArrayList<double[]>();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor();
                var writer = Files.newBufferedWriter(csv)) {
            writer.write("seconds,server_rss_mb,heap_used_mb,workers_rss_mb,requests,errors,load_average_1m\n");
            for (int c = 0; c < options.connections(); c++) {
                int index = c;
                pool.submit(() -> caller(server, end, interval, index));
                Thread.sleep(Duration.ofNanos(interval / options.connections()));
            }
            try (var metrics = new KeepAliveConnection(server.port(), 30_000)) {
                for (long tick = started; tick < end; tick += 10_000_000_000L) {
                    long wait = tick - System.nanoTime();
                    if (wait > 0) {
                        Thread.sleep(Duration.ofNanos(wait));
                    }
                    double[] sample = {
                        (System.nanoTime() - started) / 1e9,
                        status(server.process().pid(), "VmRSS") / 1024.0,
                        heapUsed(metrics, server.token()) / 1048576.0,
                        workersRss(server.process().pid()) / 1024.0,
                        requests(),
                        errors(),
                        Double.parseDouble(
                                Files.readString(Path.of("/proc/loadavg")).split(" ")[0])
                    };
                    samples.add(sample);
                    writer.write(String.format(
                            Locale.ROOT,
                            "%.0f,%.1f,%.1f,%.1f,%.0f,%.0f,%.2f%n",
                            sample[0],
                            sample[1],
                            sample[2],
                            sample[3],
                            sample[4],
                            sample[5],
                            sample[6]));
                    writer.flush();
                }
            }
        }
        System.out.printf(
                "%nsoak: %.1f min at %.0f requests/s over %d connections against %s; samples in %s%n",
                options.seconds() / 60.0, options.rate(), options.connections(), options.jar(), csv);
        summary((System.nanoTime() - started) / 1e9);
        System.out.printf(
                Locale.ROOT,
                "machine: %d CPUs, load average (1 min) over the run: mean %.2f, max %.2f%n",
                Runtime.getRuntime().availableProcessors(),
                samples.stream().mapToDouble(s -> s[6]).average().orElse(0),
                samples.stream().mapToDouble(s -> s[6]).max().orElse(0));
        memory(samples, options.seconds());
    }

    /**
     * Flat memory: after a warm-up (a sixth of the run, 5 minutes of 30), the first and the last third of the run
     * (10 minutes of 30) compared by the mean of their per-minute floors, and a line fitted through all per-minute
     * floors after the warm-up. A run shorter than 30 minutes (a smoke run) takes floors over a thirtieth of itself.
     */
    static void memory(List<double[]> samples, int seconds) {
        double warmUp = seconds / 6.0;
        double window = seconds / 3.0;
        // per minute: the lowest heap used (what survived that minute's collections) and the lowest RSS
        double bucket = Math.min(60, Math.max(10, seconds / 30.0));
        var minutes = new TreeMap<Integer, double[]>();
        for (double[] s : samples) {
            if (s[0] < warmUp) {
                continue;
            }
            minutes.merge((int) (s[0] / bucket), new double[] {s[1], s[2], s[3]}, (a, b) ->
                    new double[] {Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.min(a[2], b[2])});
        }
        String[] names = {"server RSS", "heap floor", "workers' RSS"};
        double[] tolerance = {0.10, 0.15, 0.10};
        System.out.printf(
                "%nmemory (per-minute floors after %.1f min of warm-up; first window %.1f–%.1f min, last %.1f–%.1f"
                        + " min)%n",
                warmUp / 60, warmUp / 60, (warmUp + window) / 60, (seconds - window) / 60, seconds / 60.0);
        System.out.printf("(floors over %.0f s)%n", bucket);
        System.out.println(
                "| measure | first window MB | last window MB | change | slope MB/hour | tolerance | flat |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int m = 0; m < names.length; m++) {
            int measure = m;
            double first = minutes.entrySet().stream()
                    .filter(e -> e.getKey() * bucket < warmUp + window)
                    .mapToDouble(e -> e.getValue()[measure])
                    .average()
                    .orElse(Double.NaN);
            double last = minutes.entrySet().stream()
                    .filter(e -> e.getKey() * bucket >= seconds - window)
                    .mapToDouble(e -> e.getValue()[measure])
                    .average()
                    .orElse(Double.NaN);
            double slope = slope(minutes, measure) * 3600 / bucket; // per bucket -> per hour
            double change = (last - first) / first;
            // flat: the last window within tolerance of the first, and no trend that would exceed it within an hour
            boolean flat = change <= tolerance[m] && slope <= tolerance[m] * first;
            System.out.printf(
                    Locale.ROOT,
                    "| %s | %.1f | %.1f | %+.1f%% | %+.1f | +%.0f%% (and slope < %.0f MB/hour) | %s |%n",
                    names[m],
                    first,
                    last,
                    change * 100,
                    slope,
                    tolerance[m] * 100,
                    tolerance[m] * first,
                    flat ? "yes" : "NO");
        }
    }

    /** Least-squares slope of one measure over the buckets, in MB per bucket. */
    static double slope(TreeMap<Integer, double[]> minutes, int measure) {
        double n = minutes.size();
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (var e : minutes.entrySet()) {
            double x = e.getKey();
            double y = e.getValue()[measure];
            sx += x;
            sy += y;
            sxx += x * x;
            sxy += x * y;
        }
        return (n * sxy - sx * sy) / (n * sxx - sx * sx);
    }

    static double requests() {
        return LATENCIES.values().stream()
                .mapToLong(ConcurrentLinkedQueue::size)
                .sum();
    }

    static double errors() {
        return ERRORS.values().stream().mapToLong(f -> f.count().sum()).sum();
    }

    static void summary(double seconds) {
        long total = (long) requests();
        System.out.printf(
                "%,d requests answered 2xx in %.0f s: %.0f requests/s; %,.0f errors%n",
                total, seconds, total / seconds, errors());
        System.out.println("| route class | share | requests | per second | p50 ms | p99 ms | max ms |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (var entry : new TreeMap<>(MIX).entrySet()) {
            var queue = LATENCIES.getOrDefault(entry.getKey(), new ConcurrentLinkedQueue<>());
            long[] sorted = queue.stream().mapToLong(Long::longValue).sorted().toArray();
            if (sorted.length == 0) {
                System.out.printf("| %s | %d%% | 0 | | | | |%n", entry.getKey(), entry.getValue());
                continue;
            }
            System.out.printf(
                    "| %s | %d%% | %,d | %.0f | %.1f | %.1f | %.1f |%n",
                    entry.getKey(),
                    entry.getValue(),
                    sorted.length,
                    sorted.length / seconds,
                    sorted[sorted.length / 2] / 1e6,
                    sorted[Math.min(sorted.length - 1, (int) (sorted.length * 0.99))] / 1e6,
                    sorted[sorted.length - 1] / 1e6);
        }
        System.out.println("errors by kind, count (first–last second of the run): "
                + (ERRORS.isEmpty() ? "none" : new TreeMap<>(ERRORS)));
    }

    /** The heap in use, from /metrics (an admin's: it shows every project). */
    static long heapUsed(KeepAliveConnection metrics, String adminToken) throws IOException {
        long used = 0;
        for (String line : metrics.send("GET", "/metrics", null, Map.of("Authorization", "Bearer " + adminToken))
                .body()
                .split("\n")) {
            var matcher = HEAP.matcher(line);
            if (matcher.matches()) {
                used += (long) Double.parseDouble(matcher.group(1));
            }
        }
        return used;
    }

    /** A field of /proc/PID/status in kB (or a count), 0 when the process is gone. */
    static long status(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith(field + ":")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException gone) {
            return 0;
        }
        return 0;
    }

    static long workersRss(long pid) {
        return ProcessHandle.of(pid)
                .map(p ->
                        p.descendants().mapToLong(d -> status(d.pid(), "VmRSS")).sum())
                .orElse(0L);
    }

    static long openDescriptors(long pid) throws IOException {
        try (var fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            return fds.count();
        }
    }

    static String descriptorLimit(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "limits"))) {
            if (line.startsWith("Max open files")) {
                return line.split("\\s+")[3];
            }
        }
        return "?";
    }

    static long established(int port) throws Exception {
        var ss = new ProcessBuilder("ss", "-Htn", "state", "established", "( dport = :" + port + " )")
                .redirectErrorStream(true)
                .start();
        long count = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                .lines()
                .filter(l -> !l.isBlank())
                .count();
        ss.waitFor();
        return count;
    }
}
