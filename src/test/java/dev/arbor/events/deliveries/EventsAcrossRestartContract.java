package dev.arbor.events.deliveries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.arbor.ArborServer;
import dev.arbor.platform.db.Database;
import dev.arbor.platform.ids.Ids;
import dev.arbor.platform.json.Json;
import dev.arbor.testing.GitHubHook;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestServer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What events leave in the database when the server stops is carried on by the next server on the same data: a
 * delivery recorded but not dispatched is dispatched by the start-up sweep, a debounce window open at the stop starts
 * its one run when it closes, and a URL target whose first attempt failed is tried again. Each test stops its first
 * server and starts a second on the same data folder (and database); one clock spans both. Runs once per database.
 */
abstract class EventsAcrossRestartContract {
    private static final String ADMIN_SECRET = "arb_events_restart_admin";
    private static final String[] ADMIN = {"Authorization", "Bearer " + ADMIN_SECRET};

    private final MovableClock clock = new MovableClock();
    private HttpReceiver receiver;
    private Map<String, String> env;
    private ArborServer server;
    private String project;
    private GitHubHook hook;

    /** The server's environment beside the admin token: its database, the same for every call of one test. */
    abstract Map<String, String> database();

    /** The database a stopped server used. */
    abstract Database open(Map<String, String> env, Path dataDir);

    @BeforeEach
    void start() throws IOException {
        receiver = new HttpReceiver();
        env = new HashMap<>(database());
        env.put("ARBOR_ADMIN_TOKEN", ADMIN_SECRET);
        env.put("ARBOR_OUTBOUND_ALLOW", "127.0.0.1");
        // a retry waits for the clock to be moved on: never before the restart
        env.put("ARBOR_TRIGGER_RETRY_SECONDS", "60");
        server = ArborServer.start(env, clock);
        env.put("ARBOR_DATA", server.dataDir().toString());
        project = http().post("/projects", "{\"name\": \"restarts\"}", ADMIN)
                .json()
                .path("id")
                .asText();
        hook = GitHubHook.connect(http(), project, ADMIN);
    }

    @AfterEach
    void stop() {
        if (server != null) {
            stopServer();
        }
        receiver.close();
    }

    @Test
    void aDeliveryRecordedButNotDispatchedWhenTheServerStoppedIsDispatchedAtTheNextStart() {
        String pipeline = pipeline();
        trigger(Map.of("pipeline_id", pipeline), 0);
        stopServer();
        // what a server stopped between the delivery's commit (and its 200) and its dispatch leaves: the round waits
        String deliveryId = Ids.next("evd");
        try (Database database = open(env, Path.of(env.get("ARBOR_DATA")))) {
            Instant received = clock.instant();
            ObjectNode signature = Json.object().put("valid", true).put("secret", "current");
            assertThat(new DeliveryStore(database)
                            .record(
                                    new Delivery(
                                            deliveryId,
                                            hook.connectionId(),
                                            "github",
                                            Delivery.Status.ACCEPTED,
                                            Optional.of("issues.opened"),
                                            true,
                                            Optional.of(UUID.randomUUID().toString()),
                                            0,
                                            Optional.empty(),
                                            signature,
                                            Json.object(),
                                            Optional.of(Json.read(GitHubHook.ISSUE_OPENED)),
                                            Optional.empty(),
                                            received,
                                            received,
                                            OptionalInt.of(0),
                                            0,
                                            Optional.empty(),
                                            Optional.empty(),
                                            OptionalLong.empty()),
                                    Optional.empty()))
                    .isInstanceOf(DeliveryStore.Recorded.Fresh.class);
        }
        clock.advance(Duration.ofSeconds(1));

        server = ArborServer.start(env, clock);

        JsonNode firing = firing(deliveryId, "done");
        assertThat(completed(firing.path("run_id").asText())).isEqualTo("issues.opened: Found a bug");
        assertThat(detail(deliveryId).path("dispatch").path("rounds").asInt()).isEqualTo(1);
        assertThat(runsOf(pipeline)).isEqualTo(1);
    }

    @Test
    void aDebounceWindowOpenWhenTheServerStoppedStartsItsOneRunAfterTheRestart() {
        String pipeline = pipeline();
        trigger(Map.of("pipeline_id", pipeline), 60);
        String first = delivered();
        String last = delivered();
        firing(last, "waiting");
        assertThat(firing(first, "merged").path("run_id").isNull()).isTrue();

        restart();
        clock.advance(Duration.ofSeconds(61));

        JsonNode firing = firing(last, "done");
        assertThat(completed(firing.path("run_id").asText())).isEqualTo("issues.opened: Found a bug");
        assertThat(http().get("/runs/" + firing.path("run_id").asText(), ADMIN)
                        .json()
                        .path("trigger")
                        .path("event_count")
                        .asInt())
                .isEqualTo(2);
        assertThat(runsOf(pipeline)).isEqualTo(1);
    }

    @Test
    void aUrlTargetWhoseFirstAttemptFailedIsTriedAgainAfterTheRestart() {
        receiver.script("/flaky", HttpReceiver.Reply.json(503, "{}"), HttpReceiver.Reply.json(200, "{}"));
        String trigger = trigger(Map.of("url", receiver.url("/flaky")), 0);
        String deliveryId = delivered();
        await().atMost(Duration.ofSeconds(30)).until(() -> attempts(trigger).size() == 1);

        restart();
        clock.advance(Duration.ofSeconds(61));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> firing(deliveryId).path("status").asText().equals("done"));
        assertThat(attempts(trigger).findValuesAsText("status_code")).containsExactly("503", "200");
        assertThat(receiver.received("/flaky")).hasSize(2);
    }

    @Test
    void refusedDeliveriesArePrunedAfterAWeekAndAcceptedOnesKept() {
        String accepted = delivered();
        http().post(hook.path(), GitHubHook.ISSUE_OPENED, "X-GitHub-Event", "issues", "X-Hub-Signature-256", "sha256=0")
                .assertError(401, "invalid_signature", null);
        assertThat(deliveries("refused")).hasSize(1);
        stopServer();
        clock.advance(Duration.ofDays(7).plusHours(1));

        server = ArborServer.start(env, clock);

        await().atMost(Duration.ofSeconds(30)).until(() -> deliveries("refused").isEmpty());
        assertThat(deliveries("accepted")).containsExactly(accepted);
    }

    private java.util.List<String> deliveries(String status) {
        return http().get("/events/shared-connections/" + hook.connectionId() + "/deliveries?status=" + status, ADMIN)
                .ids();
    }

    /** Stops the server and starts another on its data. */
    private void restart() {
        stopServer();
        server = ArborServer.start(env, clock);
    }

    private void stopServer() {
        ArborServer stopping = server;
        server = null;
        stopping.close();
    }

    private TestServer http() {
        return server.http();
    }

    /** A signed delivery, accepted: its id. */
    private String delivered() {
        HttpReply reply = hook.deliver(http(), UUID.randomUUID().toString());
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json().path("delivery_id").asText();
    }

    /** A pipeline of one step that notes the event it was started for. */
    private String pipeline() {
        HttpReply created = http().post("/pipelines", """
                {"name": "noted", "steps": [{"id": "note", "action": "set_output",
                  "params": {"key": "seen", "value": "{{ event.type }}: {{ event.payload.issue.title }}"}}]}""", ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    /** A trigger on the hook's {@code issues.opened} with the target given: its id. */
    private String trigger(Map<String, String> target, int debounceSeconds) {
        ObjectNode body = Json.object()
                .put("name", "across restarts")
                .put("project_id", project)
                .put("connection_id", hook.connectionId())
                .put("debounce_seconds", debounceSeconds);
        body.putArray("event_types").add("issues.opened");
        ObjectNode targetJson = body.putObject("target");
        target.forEach(targetJson::put);
        HttpReply created = http().post("/triggers", body.toString(), ADMIN);
        assertThat(created.status()).as(created.body()).isEqualTo(201);
        return created.json().path("id").asText();
    }

    /** The delivery's one firing once it has the status given. */
    private JsonNode firing(String deliveryId, String status) {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> firing(deliveryId).path("status").asText().equals(status));
        return firing(deliveryId);
    }

    private JsonNode firing(String deliveryId) {
        JsonNode firings = detail(deliveryId).path("firings");
        assertThat(firings.size()).as(firings.toString()).isLessThanOrEqualTo(1);
        return firings.path(0);
    }

    private JsonNode detail(String deliveryId) {
        HttpReply reply =
                http().get("/events/shared-connections/" + hook.connectionId() + "/deliveries/" + deliveryId, ADMIN);
        assertThat(reply.status()).as(reply.body()).isEqualTo(200);
        return reply.json();
    }

    private JsonNode attempts(String triggerId) {
        return http().get("/triggers/" + triggerId + "/firings", ADMIN)
                .json()
                .path("data")
                .path(0)
                .path("attempts");
    }

    /** What the run noted, once it completed. */
    private String completed(String runId) {
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> http().get("/runs/" + runId, ADMIN)
                                .json()
                                .path("status")
                                .asText(),
                        "completed"::equals);
        return http().get("/runs/" + runId, ADMIN)
                .json()
                .path("steps")
                .path(0)
                .path("outputs")
                .path("seen")
                .asText();
    }

    private int runsOf(String pipeline) {
        return http().get("/pipelines/" + pipeline + "/runs?limit=100", ADMIN)
                .json()
                .path("data")
                .size();
    }
}
