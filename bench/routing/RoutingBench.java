import dev.arbor.Application;
import dev.arbor.Config;
import java.io.IOException;
import java.io.InputStream;
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
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
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
 * answering at once), called directly and through an in-process Arbor's /v1/chat/completions
 * (a cloud model pointing at it, a member token), in alternating turns at 1, 64 and 256 callers; then streaming's time
 * to first byte the same two ways. Run with the Arbor jar: java -cp target/arbor.jar bench/routing/RoutingBench.java
 * [seconds a turn] [turns]
 */
public class RoutingBench {
    static final byte[] ANSWER = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1795000000,"
                    + "\"model\":\"llama-3-8b\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                    + "\"content\":\"Hello there, how can I help?\"},\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":7,\"total_tokens\":19}}")
            .getBytes(StandardCharsets.UTF_8);
    static final String CHUNK = "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1795000000,"
            + "\"model\":\"llama-3-8b\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"}}]}\n\n";
    static final HttpClient CLIENT =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    /** ARBOR_ADMIN_TOKEN: compared in memory, so the figures leave out the database lookup of an API token. */
    static final String ENV_TOKEN = "arb_routing_bench_admin";

    static final Pattern TOKEN = Pattern.compile("\"token\":\"([^\"]+)\"");

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
        String direct = "http://127.0.0.1:" + upstreamPort + "/v1/chat/completions";
        Path data = Files.createTempDirectory("arbor-routing-bench-");
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
            send(
                    base + "/models",
                    ENV_TOKEN,
                    "{\"id\": \"bench\", \"model_uri\": \"http://127.0.0.1:"
                            + upstreamPort + "/v1\", \"model_name\": \"bench\", \"model_source\": "
                            + "\"cloud\", \"engine\": \"remote\", \"remote_model\": \"llama-3-8b\"}");
            Matcher admin =
                    TOKEN.matcher(send(base + "/auth/tokens", ENV_TOKEN, "{\"name\": \"b\", \"role\": \"admin\"}"));
            admin.find();
            String token = admin.group(1);
            String through = base + "/v1/chat/completions";
            String body = "{\"model\": \"bench\", \"messages\": [{\"role\": \"user\", \"content\": \"Say hello.\"}]}";
            String streamBody = body.replace("{\"model\"", "{\"stream\": true, \"model\"");
            Call directCall = () -> post(direct, ENV_TOKEN, body, false);
            Call arborCall = () -> post(through, ENV_TOKEN, body, false);
            System.out.printf("%d s turns, %d turns each, 2 s warm-up; latencies in ms%n", seconds, turns);
            System.out.println("| callers | direct p50 | direct p99 | arbor p50 | arbor p99 | added p50 | added p99 | "
                    + "arbor req/s | failed calls |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            for (int callers : new int[] {1, 64, 256}) {
                FAILED.set(0);
                Result[] r = alternate(callers, seconds, turns, directCall, arborCall);
                System.out.printf(
                        "| %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %,.0f | %d |%n",
                        callers,
                        r[0].p50,
                        r[0].p99,
                        r[1].p50,
                        r[1].p99,
                        r[1].p50 - r[0].p50,
                        r[1].p99 - r[0].p99,
                        r[1].perSecond,
                        FAILED.get());
            }
            Result[] looked = alternate(1, seconds, turns, directCall, () -> post(through, token, body, false));
            System.out.printf(
                    "1 caller with an API token (looked up in the database): arbor p50 %.3f p99 %.3f, added p50 %.3f "
                            + "p99 %.3f%n",
                    looked[1].p50, looked[1].p99, looked[1].p50 - looked[0].p50, looked[1].p99 - looked[0].p99);
            Result[] ttfb = alternate(
                    1,
                    seconds,
                    turns,
                    () -> post(direct, ENV_TOKEN, streamBody, true),
                    () -> post(through, ENV_TOKEN, streamBody, true));
            System.out.printf(
                    "stream, 1 caller, time to first byte: direct p50 %.3f p99 %.3f, arbor p50 %.3f p99 %.3f, "
                            + "added p50 %.3f p99 %.3f%n",
                    ttfb[0].p50,
                    ttfb[0].p99,
                    ttfb[1].p50,
                    ttfb[1].p99,
                    ttfb[1].p50 - ttfb[0].p50,
                    ttfb[1].p99 - ttfb[0].p99);
        } finally {
            upstream.stop();
        }
    }

    /** The upstream: a chat completion at once, or five chunks and [DONE] for a stream. */
    static void answer(Request request, Response response, Callback callback) throws Exception {
        String body = Content.Source.asString(request, StandardCharsets.UTF_8);
        response.setStatus(200);
        if (!body.contains("\"stream\": true")) {
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

    /** A POST's latency: to the whole answer, or for a stream to its first byte (the rest is read, untimed). */
    static long post(String url, String token, String body, boolean firstByte) throws Exception {
        long start = System.nanoTime();
        HttpResponse<InputStream> response = CLIENT.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("content-type", "application/json")
                        .header("authorization", "Bearer " + token)
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofInputStream());
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

    /** Calls that failed (a connection reset under load, a non-200): counted, left out of the latencies. */
    static final AtomicInteger FAILED = new AtomicInteger();

    record Result(double perSecond, double p50, double p99) {}

    /** Both ways in alternating turns, after a warm-up of each, so that busy moments fall on both alike. */
    static Result[] alternate(int callers, int seconds, int turns, Call first, Call second) throws Exception {
        calls(Math.max(callers, 8), 2, first);
        calls(Math.max(callers, 8), 2, second);
        var a = new ArrayList<Long>();
        var b = new ArrayList<Long>();
        for (int turn = 0; turn < turns; turn++) {
            a.addAll(calls(callers, seconds, first));
            b.addAll(calls(callers, seconds, second));
        }
        return new Result[] {result(a, seconds * turns), result(b, seconds * turns)};
    }

    static Result result(List<Long> latencies, int seconds) {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(
                sorted.length / (double) seconds,
                sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6);
    }

    static List<Long> calls(int callers, int seconds, Call call) throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            var futures = new ArrayList<Future<List<Long>>>();
            for (int c = 0; c < callers; c++) {
                futures.add(pool.submit((Callable<List<Long>>) () -> {
                    var latencies = new ArrayList<Long>();
                    while (System.nanoTime() < end) {
                        try {
                            latencies.add(call.call());
                        } catch (IOException | IllegalStateException e) {
                            FAILED.incrementAndGet();
                        }
                    }
                    return latencies;
                }));
            }
            var all = new ArrayList<Long>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get());
            }
            return all;
        }
    }
}
