import dev.arbor.Application;
import dev.arbor.Config;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * What routing adds to an inference call: a scripted OpenAI-compatible upstream on loopback (a bare Jetty handler,
 * answering at once), called directly, through an in-process Arbor's /v1/chat/completions (a cloud model pointing at
 * it, a single_endpoint router and a weighted_routing router over it), and through Portkey's open-source gateway (a
 * Node process, provider openai with the upstream as its custom host), in alternating turns at 1, 64 and 256 callers;
 * then an API token's lookup, and streaming's time to first byte the same ways. Run from the repository root with the
 * Arbor jar: java -cp target/arbor.jar bench/routing/RoutingBench.java [seconds a turn] [turns] (Portkey's rows need
 * npm ci in bench/routing/portkey first, and are left out without it).
 */
public class RoutingBench {
    static final byte[] ANSWER = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1795000000,"
                    + "\"model\":\"llama-3-8b\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"Hello there, how can I help?\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,\"total_tokens\":19}}")
            .getBytes(StandardCharsets.UTF_8);
    static final String CHUNK = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1795000000,"
            + "\"model\":\"llama-3-8b\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"}}]}\n\n";
    /** Portkey writes the body again in compact JSON, so the upstream cannot look for the bytes the client sent. */
    static final Pattern STREAMED = Pattern.compile("\"stream\"\\s*:\\s*true");

    static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** ARBOR_ADMIN_TOKEN: compared in memory, so the figures leave out the database lookup of an API token. */
    static final String ENV_TOKEN = "arb_routing_bench_admin";

    static final Pattern TOKEN = Pattern.compile("\"token\":\"([^\"]+)\"");
    static final Pattern ID = Pattern.compile("\"id\":\"([^\"]+)\"");
    static final Path PORTKEY = Path.of("bench/routing/portkey/node_modules/@portkey-ai/gateway/build/start-server.js");

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int turns = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        Server upstream = new Server();
        ServerConnector connector = new ServerConnector(upstream);
        connector.setHost("127.0.0.1");
        connector.setAcceptQueueSize(1024);
        upstream.addConnector(connector);
        upstream.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                answer(request, response, callback);
                return true;
            }
        });
        upstream.start();
        int upstreamPort = connector.getLocalPort();
        String upstreamBase = "http://127.0.0.1:" + upstreamPort + "/v1";
        String direct = upstreamBase + "/chat/completions";
        Path data = Files.createTempDirectory("arbor-routing-bench-");
        Process portkey = null;
        try (var app = Application.start(Config.load(
                Map.of(
                        "ARBOR_DATA", data.toString(),
                        "ARBOR_PORT", "0",
                        "ARBOR_OUTBOUND_ALLOW", "127.0.0.1",
                        "ARBOR_LOG_LEVEL", "WARN",
                        "ARBOR_MAX_CONNECTIONS_PER_ADDRESS", "4096",
                        "ARBOR_ADMIN_TOKEN", ENV_TOKEN),
                List.of()))) {
            String base = "http://127.0.0.1:" + app.port();
            for (String model : List.of("bench", "bench-b")) {
                send(
                        base + "/models",
                        ENV_TOKEN,
                        "{\"id\": \"" + model + "\", \"model_uri\": \"" + upstreamBase + "\", \"model_name\": \""
                                + model + "\", \"model_source\": \"cloud\", \"engine\": \"remote\", "
                                + "\"remote_model\": \"llama-3-8b\"}");
            }
            Matcher project = ID.matcher(send(base + "/projects", ENV_TOKEN, "{\"name\": \"routing-bench\"}"));
            project.find();
            router(
                    base,
                    project.group(1),
                    "single",
                    "{\"step_id\": \"pick\", \"action_type\": \"single_endpoint\", "
                            + "\"params\": {\"endpoint\": \"bench\"}}");
            router(
                    base,
                    project.group(1),
                    "weighted",
                    "{\"step_id\": \"split\", \"action_type\": "
                            + "\"weighted_routing\", \"params\": {\"weights\": [{\"endpoint\": \"bench\", \"weight\": 3}, "
                            + "{\"endpoint\": \"bench-b\", \"weight\": 1}]}}");
            Matcher admin =
                    TOKEN.matcher(send(base + "/auth/tokens", ENV_TOKEN, "{\"name\": \"b\", \"role\": \"admin\"}"));
            admin.find();
            String token = admin.group(1);
            String through = base + "/v1/chat/completions";
            String body = "{\"model\": \"bench\", \"messages\": [{\"role\": \"user\", \"content\": \"Say hello.\"}]}";
            Optional<String> portkeyUrl = Optional.empty();
            if (Files.exists(PORTKEY)) {
                int port = freePort();
                portkey = new ProcessBuilder("node", PORTKEY.toString(), "--port=" + port, "--headless")
                        .redirectErrorStream(true)
                        .redirectOutput(data.resolve("portkey.log").toFile())
                        .start();
                awaitUp("http://127.0.0.1:" + port + "/", portkey);
                portkeyUrl = Optional.of("http://127.0.0.1:" + port + "/v1/chat/completions");
            } else {
                System.out.println("Portkey left out: run npm ci in bench/routing/portkey to compare with it.");
            }
            System.out.printf("%d s turns, %d turns each, 2 s warm-up of each way; latencies in ms%n", seconds, turns);
            System.out.println("| callers | way | req/s | p50 | p99 | added p50 | added p99 | failed calls |");
            System.out.println("|---|---|---|---|---|---|---|---|");
            for (int callers : new int[] {1, 64, 256}) {
                print(
                        callers,
                        alternate(callers, seconds, turns, ways(direct, through, portkeyUrl, upstreamBase, body)));
            }
            print(
                    1,
                    alternate(
                            1,
                            seconds,
                            turns,
                            List.of(
                                    new Way("direct", () -> post(direct, ENV_TOKEN, body, false)),
                                    new Way(
                                            "arbor, cloud model, API token (looked up in the database)",
                                            () -> post(through, token, body, false)))));
            System.out.println("Streaming, time to first byte:");
            String streamBody = body.replace("{\"model\"", "{\"stream\": true, \"model\"");
            print(1, alternate(1, seconds, turns, ways(direct, through, portkeyUrl, upstreamBase, streamBody)));
        } finally {
            if (portkey != null) {
                portkey.destroy();
                portkey.waitFor();
            }
            upstream.stop();
        }
    }

    /**
     * Every way sends the same body, {@code model} the cloud model's id, except the router rows, where it names the
     * router. Portkey runs on its defaults: no cache, no retries, no guardrails.
     */
    static List<Way> ways(String direct, String through, Optional<String> portkey, String upstreamBase, String body) {
        boolean firstByte = STREAMED.matcher(body).find();
        var ways = new ArrayList<Way>();
        ways.add(new Way("direct", () -> post(direct, ENV_TOKEN, body, firstByte)));
        ways.add(new Way("arbor, cloud model", () -> post(through, ENV_TOKEN, body, firstByte)));
        for (String router : List.of("single", "weighted")) {
            String routed = body.replace("\"model\": \"bench\"", "\"model\": \"" + router + "\"");
            ways.add(new Way("arbor, " + router + " router", () -> post(through, ENV_TOKEN, routed, firstByte)));
        }
        portkey.ifPresent(url -> ways.add(new Way(
                "portkey",
                () -> post(
                        url,
                        ENV_TOKEN,
                        body,
                        firstByte,
                        "x-portkey-provider",
                        "openai",
                        "x-portkey-custom-host",
                        upstreamBase))));
        return ways;
    }

    /** One table row a way; the first way is the baseline the others add to. */
    static void print(int callers, List<Result> results) {
        Result baseline = results.getFirst();
        for (Result r : results) {
            System.out.printf(
                    "| %d | %s | %,.0f | %.3f | %.3f | %s | %s | %d |%n",
                    callers,
                    r.way,
                    r.perSecond,
                    r.p50,
                    r.p99,
                    r == baseline ? "—" : "%.3f".formatted(r.p50 - baseline.p50),
                    r == baseline ? "—" : "%.3f".formatted(r.p99 - baseline.p99),
                    r.failed);
        }
    }

    static void router(String base, String project, String name, String step) throws Exception {
        String first = step.replaceFirst(".*?\"step_id\": \"([^\"]+)\".*", "$1");
        String made = send(
                base + "/routers",
                ENV_TOKEN,
                "{\"project_id\": \"" + project + "\", \"name\": \"" + name + "\", \"dag_config\": {\"entry_step\": \""
                        + first + "\", \"steps\": [" + step + "]}}");
        if (!made.contains("\"status\":\"active\"")) {
            throw new IllegalStateException("router " + name + " is not active: " + made);
        }
    }

    static int freePort() throws IOException {
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** Polls the gateway's greeting until it answers; Node takes a second or two to start. */
    static void awaitUp(String url, Process process) throws Exception {
        long end = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Portkey's gateway exited with " + process.exitValue());
            }
            try {
                var reply = CLIENT.send(
                        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding());
                if (reply.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("Portkey's gateway did not answer " + url + " within 60 s");
    }

    /** The upstream: a chat completion at once, or five chunks and [DONE] for a stream. */
    static void answer(Request request, Response response, Callback callback) throws Exception {
        String body = Content.Source.asString(request, StandardCharsets.UTF_8);
        response.setStatus(200);
        if (!STREAMED.matcher(body).find()) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
            response.write(true, ByteBuffer.wrap(ANSWER), callback);
            return;
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
        for (int i = 0; i < 5; i++) {
            var written = new Callback.Completable();
            response.write(false, ByteBuffer.wrap(CHUNK.getBytes(StandardCharsets.UTF_8)), written);
            written.get();
        }
        response.write(true, ByteBuffer.wrap("data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8)), callback);
    }

    interface Call {
        long call() throws Exception;
    }

    /**
     * A POST's latency: to the whole answer, or for a stream to its first byte (the rest is read, untimed). {@code
     * headers} are extra names and values.
     */
    static long post(String url, String token, String body, boolean firstByte, String... headers) throws Exception {
        long start = System.nanoTime();
        var request = HttpRequest.newBuilder(URI.create(url))
                .header("content-type", "application/json")
                .header("authorization", "Bearer " + token)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        HttpResponse<InputStream> response = CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            if (response.statusCode() != 200) {
                throw new IllegalStateException(url + " answered " + response.statusCode() + ": "
                        + new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            if (firstByte) {
                in.read();
                long elapsed = System.nanoTime() - start;
                in.readAllBytes();
                return elapsed;
            }
            in.readAllBytes();
            return System.nanoTime() - start;
        }
    }

    static String send(String url, String token, String body) throws Exception {
        var builder = HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            builder.header("authorization", "Bearer " + token);
        }
        HttpResponse<String> response = CLIENT.send(builder.build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    /** One way to the upstream, named for the table. */
    record Way(String name, Call call) {}

    /**
     * Calls that failed (a connection reset under load, a non-200) are counted and left out of the latencies; the
     * first one's message is kept to say why.
     */
    record Turn(List<Long> latencies, int failed, Optional<String> firstFailure) {}

    record Result(String way, double perSecond, double p50, double p99, int failed) {}

    /** Every way in alternating turns, after a warm-up of each, so that busy moments fall on all alike. */
    static List<Result> alternate(int callers, int seconds, int turns, List<Way> ways) throws Exception {
        for (Way way : ways) {
            calls(Math.max(callers, 8), 2, way.call);
        }
        var turnsOf = new ArrayList<List<Turn>>();
        ways.forEach(way -> turnsOf.add(new ArrayList<>()));
        for (int turn = 0; turn < turns; turn++) {
            for (int w = 0; w < ways.size(); w++) {
                turnsOf.get(w).add(calls(callers, seconds, ways.get(w).call));
            }
        }
        var results = new ArrayList<Result>();
        for (int w = 0; w < ways.size(); w++) {
            List<Turn> all = turnsOf.get(w);
            String name = ways.get(w).name;
            all.stream()
                    .flatMap(t -> t.firstFailure.stream())
                    .findFirst()
                    .ifPresent(failure -> System.out.println("(" + name + ", first failed call: " + failure + ")"));
            results.add(result(
                    name,
                    all.stream().flatMap(t -> t.latencies.stream()).toList(),
                    all.stream().mapToInt(Turn::failed).sum(),
                    seconds * turns));
        }
        return results;
    }

    static Result result(String way, List<Long> latencies, int failed, int seconds) {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        if (sorted.length == 0) {
            return new Result(way, 0, Double.NaN, Double.NaN, failed);
        }
        return new Result(
                way,
                sorted.length / (double) seconds,
                sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6,
                failed);
    }

    static Turn calls(int callers, int seconds, Call call) throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            var failed = new AtomicInteger();
            var firstFailure = new AtomicReference<String>();
            var futures = new ArrayList<Future<List<Long>>>();
            for (int c = 0; c < callers; c++) {
                futures.add(pool.submit((Callable<List<Long>>) () -> {
                    var latencies = new ArrayList<Long>();
                    while (System.nanoTime() < end) {
                        try {
                            latencies.add(call.call());
                        } catch (IOException | IllegalStateException e) {
                            failed.incrementAndGet();
                            firstFailure.compareAndSet(null, e.toString());
                        }
                    }
                    return latencies;
                }));
            }
            var all = new ArrayList<Long>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get());
            }
            return new Turn(all, failed.get(), Optional.ofNullable(firstFailure.get()));
        }
    }
}
