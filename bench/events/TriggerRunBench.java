package events;

import com.fasterxml.jackson.databind.JsonNode;
import common.CommitRate;
import common.InProcessServer;
import common.JsonCalls;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Events that start pipeline runs: a batch of GitHub deliveries (signed, each with its own delivery id, sent by
 * concurrent clients) that all match one trigger whose target is a 3-step linear pipeline of set_output steps. Timed
 * from the first POST: every 200 back, every run started (its row exists), every run completed; runs started and
 * finished per second are the batch over those times. Beside them, the raw commit rate of the same database measured
 * in the same round. Run with the Arbor jar (IngestBench.java beside it is compiled with it):
 * java --enable-native-access=ALL-UNNAMED -cp target/arbor.jar bench/events/TriggerRunBench.java
 * [rounds, default 3] [deliveries a round, default 500] [clients, default 32] [jdbc:postgresql://... for PostgreSQL]
 */
public class TriggerRunBench {
    static final String BODY = "{\"action\": \"opened\", \"issue\": {\"number\": 1347, \"title\": \"Found a bug\"}, "
            + "\"repository\": {\"name\": \"hello-world\", \"full_name\": \"octo-org/hello-world\"}}";

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 3;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 500;
        int clients = args.length > 2 ? Integer.parseInt(args[2]) : 32;
        String postgres = args.length > 3 ? args[3] : null;
        try (var server = InProcessServer.start("trigger", postgres, Map.of());
                Connection counts = DriverManager.getConnection(server.jdbc())) {
            String base = server.base();
            String jdbc = server.jdbc();
            String project = JsonCalls.send("POST", base + "/projects", "{\"name\": \"bench\"}")
                    .path("id")
                    .asText();
            JsonNode created = JsonCalls.send(
                    "POST",
                    base + "/events/shared-connections",
                    "{\"provider\": \"github\", \"credentials\": {\"signing_secret\": \"" + IngestBench.SECRET
                            + "\"}, \"project_ids\": [\"" + project + "\"]}");
            String hook =
                    base + URI.create(created.path("webhook_url").asText()).getPath();
            String pipeline =
                    JsonCalls.send("POST", base + "/pipelines", """
                    {"name": "three steps", "steps": [
                      {"id": "a", "action": "set_output", "params": {"key": "repo", "value": "{{ event.payload.repository.name }}"}},
                      {"id": "b", "action": "set_output", "depends_on": ["a"], "params": {"key": "n", "value": "{{ event.payload.issue.number }}"}},
                      {"id": "c", "action": "set_output", "depends_on": ["b"], "params": {"key": "done", "value": true}}]}""").path("id").asText();
            JsonNode trigger = JsonCalls.send(
                    "POST",
                    base + "/triggers",
                    "{\"name\": \"bench\", \"project_id\": \"" + project + "\", \"connection_id\": \""
                            + created.path("id").asText() + "\", \"event_types\": [\"issues.opened\"], "
                            + "\"target\": {\"pipeline_id\": \"" + pipeline + "\"}}");
            if (!trigger.has("id")) {
                throw new IllegalStateException("no trigger: " + trigger);
            }
            String signature = "sha256=" + IngestBench.hmac(BODY);
            round(hook, signature, Math.max(50, batch / 5), clients, counts, pipeline); // warm-up: class loading, JIT
            System.out.printf(
                    "database: %s, %d deliveries a round, %d clients, a 3-step pipeline%n",
                    postgres != null ? "PostgreSQL" : "SQLite", batch, clients);
            for (int r = 0; r < rounds; r++) {
                double commits = CommitRate.measure(jdbc);
                Times times = round(hook, signature, batch, clients, counts, pipeline);
                double started = batch / times.started();
                double finished = batch / times.finished();
                System.out.printf(
                        "round %d: raw commits %,.0f/s | deliveries recorded %,.0f/s | runs started %,.0f/s "
                                + "(%.3f of commits) | runs finished %,.0f/s (%.3f of commits)%n",
                        r + 1,
                        commits,
                        batch / times.recorded(),
                        started,
                        started / commits,
                        finished,
                        finished / commits);
            }
        }
    }

    /** Seconds from the first POST until every delivery's 200, every run's row, every run's completion. */
    record Times(double recorded, double started, double finished) {}

    static Times round(String hook, String signature, int batch, int clients, Connection counts, String pipeline)
            throws Exception {
        long before = count(counts, pipeline, false);
        long completedBefore = count(counts, pipeline, true);
        var next = new AtomicInteger();
        long start = System.nanoTime();
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            var futures = new ArrayList<Future<?>>();
            for (int c = 0; c < clients; c++) {
                futures.add(pool.submit(() -> {
                    while (next.getAndIncrement() < batch) {
                        var request = HttpRequest.newBuilder(URI.create(hook))
                                .header("content-type", "application/json")
                                .header("X-GitHub-Event", "issues")
                                .header("X-GitHub-Delivery", UUID.randomUUID().toString())
                                .header("X-Hub-Signature-256", signature)
                                .POST(HttpRequest.BodyPublishers.ofString(BODY))
                                .build();
                        HttpResponse<String> response =
                                IngestBench.HTTP.send(request, HttpResponse.BodyHandlers.ofString());
                        if (response.statusCode() != 200) {
                            throw new IllegalStateException(response.statusCode() + " " + response.body());
                        }
                    }
                    return null;
                }));
            }
            for (var future : futures) {
                future.get();
            }
        }
        double recorded = (System.nanoTime() - start) / 1e9;
        double started = -1;
        long deadline = System.nanoTime() + 600_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (started < 0 && count(counts, pipeline, false) - before >= batch) {
                started = (System.nanoTime() - start) / 1e9;
            }
            if (count(counts, pipeline, true) - completedBefore >= batch) {
                double finished = (System.nanoTime() - start) / 1e9;
                return new Times(recorded, started < 0 ? finished : started, finished);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("the runs did not finish within 10 minutes");
    }

    /** The pipeline's runs, or its completed ones, read from the database beside the server. */
    static long count(Connection db, String pipeline, boolean completed) throws Exception {
        try (PreparedStatement query = db.prepareStatement("SELECT count(*) FROM pipeline_runs WHERE pipeline_id = ?"
                + (completed ? " AND status = 'completed'" : ""))) {
            query.setString(1, pipeline);
            try (var rows = query.executeQuery()) {
                rows.next();
                return rows.getLong(1);
            }
        }
    }
}
