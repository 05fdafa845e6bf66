package dev.arbor.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.platform.db.Dialect;
import dev.arbor.testing.ArborProcess;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.StatusWaits;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A server killed (kill -9) while webhook deliveries stream in, each starting a pipeline run through a trigger:
 * after the restart every delivery it answered 200 is in the log, dispatched, and started exactly one run that
 * completes; no delivery in the log is left half-recorded (accepted but never dispatched, or fired twice). On SQLite and PostgreSQL.
 */
class KillDuringIngestTest {
    private static final String CONNECTIONS = "/events/shared-connections";
    private static final int SENDERS = 4;

    @TempDir
    Path folder;

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void deliveriesAcceptedBeforeTheKillAreDispatchedOnceAfterTheRestart(Dialect dialect) throws Exception {
        Path data = folder.resolve("data");
        String url = dialect == Dialect.POSTGRESQL
                ? TestPostgres.newDatabaseUrl()
                : "jdbc:sqlite:" + data.resolve("arbor.db");
        Map<String, String> database = dialect == Dialect.POSTGRESQL ? Map.of("ARBOR_DATABASE_URL", url) : Map.of();
        try (var server = ArborProcess.serve(data, database)) {
            TestServer http = server.http();
            String project = http.post("/projects", "{\"name\": \"hooks\"}")
                    .json()
                    .path("id")
                    .asText();
            String secret = "secret-" + UUID.randomUUID();
            JsonNode connection = http.post(
                            CONNECTIONS,
                            "{\"provider\": \"gitlab\", \"credentials\": {\"secret_token\": \"" + secret
                                    + "\"}, \"project_ids\": [\"" + project + "\"]}")
                    .json();
            String hook = URI.create(connection.path("webhook_url").asText()).getPath();
            JsonNode sample =
                    http.get("/events/descriptors?provider=gitlab").json().at("/data/0/event_types/0");
            String pipeline = http.post("/pipelines", """
                    {"name": "on push", "steps": [{"id": "note", "action": "set_output",
                      "params": {"key": "seen", "value": "{{ event.type }}"}}]}""").json().path("id").asText();
            HttpReply trigger = http.post(
                    "/triggers",
                    "{\"name\": \"on push\", \"project_id\": \"" + project + "\", \"connection_id\": \""
                            + connection.path("id").asText() + "\", \"event_types\": [\""
                            + sample.path("type").asText() + "\"], \"target\": {\"pipeline_id\": \"" + pipeline
                            + "\"}}");
            assertThat(trigger.status()).as(trigger.body()).isEqualTo(201);
            List<String> headers =
                    new ArrayList<>(List.of("Content-Type", "application/json", "X-Gitlab-Token", secret));
            sample.path("sample_headers").properties().forEach(h -> {
                headers.add(h.getKey());
                headers.add(h.getValue().asText());
            });
            String body = sample.path("sample_event").toString();

            Set<String> accepted = ConcurrentHashMap.newKeySet();
            var sending = new AtomicBoolean(true);
            ExecutorService senders = Executors.newFixedThreadPool(SENDERS);
            for (int s = 0; s < SENDERS; s++) {
                senders.submit(() -> {
                    while (sending.get()) {
                        var withId = new ArrayList<>(headers);
                        withId.addAll(
                                List.of("X-Gitlab-Event-UUID", UUID.randomUUID().toString()));
                        try {
                            HttpReply reply = http.post(hook, body, withId.toArray(String[]::new));
                            if (reply.status() == 200) {
                                accepted.add(reply.json().path("delivery_id").asText());
                            }
                        } catch (RuntimeException cut) {
                            // the server went away mid-request: the sender cannot know whether it was kept
                        }
                    }
                });
            }
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= 30);
                server.kill();
            } finally {
                sending.set(false);
                senders.shutdown();
                assertThat(senders.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
            }
            // whether the kill left rounds waiting depends on timing; the count shows what this run proved
            System.out.printf("%s: %d accepted deliveries waiting for dispatch at the kill%n", dialect, waiting(url));
            server.start();

            String deliveries = CONNECTIONS + "/" + connection.path("id").asText() + "/deliveries";
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> logged(http, deliveries).stream()
                            .allMatch(id -> dispatchStatus(http, deliveries, id).equals("dispatched")));
            List<String> logged = logged(http, deliveries);
            assertThat(logged).containsAll(accepted);
            for (String id : logged) {
                JsonNode firings = http.get(deliveries + "/" + id).json().path("firings");
                assertThat(firings).as("firings of %s", id).hasSize(1);
                String run = firings.path(0).path("run_id").asText();
                StatusWaits.until(http, "/runs/" + run, "completed", Duration.ofSeconds(60));
            }
            assertThat(runsOf(http, pipeline)).isEqualTo(logged.size());
        }
    }

    private static int waiting(String url) throws Exception {
        try (Connection db = DriverManager.getConnection(url);
                ResultSet rows = db.createStatement()
                        .executeQuery("SELECT count(*) FROM event_deliveries WHERE pending_round IS NOT NULL")) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** Every accepted delivery in the connection's log, all pages. */
    private static List<String> logged(TestServer http, String deliveries) {
        var ids = new ArrayList<String>();
        String page = deliveries + "?status=accepted&limit=100";
        while (true) {
            JsonNode list = http.get(page).json();
            list.path("data").forEach(d -> ids.add(d.path("id").asText()));
            if (!list.path("has_more").asBoolean()) {
                return ids;
            }
            page = deliveries + "?status=accepted&limit=100&after=" + ids.getLast();
        }
    }

    private static String dispatchStatus(TestServer http, String deliveries, String id) {
        return http.get(deliveries + "/" + id).json().at("/dispatch/status").asText();
    }

    private static int runsOf(TestServer http, String pipeline) {
        int runs = 0;
        String page = "/pipelines/" + pipeline + "/runs?limit=100";
        while (true) {
            JsonNode list = http.get(page).json();
            runs += list.path("data").size();
            if (!list.path("has_more").asBoolean()) {
                return runs;
            }
            page = "/pipelines/" + pipeline + "/runs?limit=100&after="
                    + list.path("data")
                            .path(list.path("data").size() - 1)
                            .path("id")
                            .asText();
        }
    }
}
