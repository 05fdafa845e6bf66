package events;

import static common.JsonCalls.send;

import com.fasterxml.jackson.databind.JsonNode;
import common.CommitRate;
import common.InProcessServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Webhook ingest's speed: verified deliveries recorded per second (GitHub deliveries, each signed with HMAC-SHA256 and
 * a delivery id of its own, sent by concurrent clients to one connection's webhook URL; a delivery counts when its
 * 200 has come back, which is after its row is committed), beside the raw commit rate of the same database measured in
 * the same run (one-row transactions, one after another), and beside the rate of the same requests to an unknown
 * token (404 before any database work: what HTTP alone allows on this machine). Then how long until every delivery of
 * the round was dispatched. Run with the Arbor jar: java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar
 * bench/events/IngestBench.java [rounds, default 3] [clients, default 32] [jdbc:postgresql://... for PostgreSQL]
 */
public class IngestBench {
    static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    static final String SECRET = "bench-signing-secret";
    static final long SECONDS = 5;

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int clients = args.length > 1 ? Integer.parseInt(args[1]) : 32;
        String postgres = args.length > 2 ? args[2] : null;
        try (var server = InProcessServer.start("ingest", postgres, Map.of())) {
            String base = server.base();
            String jdbc = server.jdbc();
            JsonNode created = send(
                    "POST",
                    base + "/events/shared-connections",
                    "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"" + SECRET + "\"}}");
            String connection = created.path("id").asText();
            String hook =
                    base + URI.create(created.path("webhook_url").asText()).getPath();
            String body = "{\"action\": \"opened\", \"issue\": {\"number\": 1347, \"title\": \"Found a bug\"}, "
                    + "\"repository\": {\"full_name\": \"octo-org/hello-world\"}}";
            String signature = "sha256=" + hmac(body);
            String unknown = base + "/events/hooks/" + "A".repeat(43);
            deliver(hook, body, signature, clients, 2, 200); // warm-up: class loading, JIT
            deliver(unknown, body, signature, clients, 1, 404);
            System.out.printf(
                    "database: %s, %d clients, %d s a round%n",
                    postgres != null ? "PostgreSQL" : "SQLite", clients, SECONDS);
            for (int round = 0; round < rounds; round++) {
                double commits = CommitRate.measure(jdbc);
                long httpStart = System.nanoTime();
                double http =
                        deliver(unknown, body, signature, clients, 2, 404) / ((System.nanoTime() - httpStart) / 1e9);
                long start = System.nanoTime();
                long delivered = deliver(hook, body, signature, clients, SECONDS, 200);
                double rate = delivered / ((System.nanoTime() - start) / 1e9);
                long waited = System.nanoTime();
                while (send(
                                "GET",
                                base + "/events/shared-connections/" + connection
                                        + "/deliveries?limit=1&status=accepted",
                                null)
                        .path("data")
                        .path(0)
                        .path("dispatch")
                        .path("status")
                        .asText()
                        .equals("waiting")) {
                    Thread.sleep(10);
                }
                System.out.printf(
                        "round %d: raw commits %,.0f/s | unknown-token 404s %,.0f/s | verified deliveries recorded "
                                + "%,.0f/s (%.2f of commits, %.2f of the 404s) | the last dispatched %.2f s after%n",
                        round + 1,
                        commits,
                        http,
                        rate,
                        rate / commits,
                        rate / http,
                        (System.nanoTime() - waited) / 1e9);
            }
        }
    }

    /** Deliveries sent by {@code clients} at once for {@code seconds}: how many got the status expected. */
    static long deliver(String hook, String body, String signature, int clients, long seconds, int expected)
            throws Exception {
        var done = new AtomicLong();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<java.util.concurrent.Future<?>>();
            for (int c = 0; c < clients; c++) {
                futures.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        var request = HttpRequest.newBuilder(URI.create(hook))
                                .header("content-type", "application/json")
                                .header("X-GitHub-Event", "issues")
                                .header("X-GitHub-Delivery", UUID.randomUUID().toString())
                                .header("X-Hub-Signature-256", signature)
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build();
                        HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() != expected) {
                            throw new IllegalStateException(response.statusCode() + " " + response.body());
                        }
                        done.incrementAndGet();
                    }
                    return null;
                }));
            }
            for (var future : futures) {
                future.get();
            }
        }
        return done.get();
    }

    static String hmac(String body) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        return HexFormat.of().formatHex(mac.doFinal(body.getBytes(StandardCharsets.UTF_8)));
    }
}
