package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.testing.GitHubHook;
import dev.arbor.testing.HttpReceiver;
import dev.arbor.testing.HttpReceiver.Reply;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.SecuredMcpServer;
import dev.arbor.testing.TestPostgres;
import dev.arbor.testing.TestServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Two servers on one PostgreSQL, as replicas run: a pipeline run's steps execute once, a schedule fires once per
 * time, an idempotency key replays on the other server, an OAuth token about to expire is refreshed once, and a
 * webhook delivery starts one run, whichever server receives or dispatches it.
 */
class TwoServersOnPostgresTest {
    private static final String[] ADMIN = {"Authorization", "Bearer admin-secret-1"};
    private static final Pattern STEPS_FINISHED =
            Pattern.compile("(?m)^arbor_pipeline_steps_finished_total\\{[^}]*} ([0-9.]+)$");

    /** Two servers on a new database with the same secret key, as replicas share theirs. */
    private record Pair(ArborServer a, ArborServer b) implements AutoCloseable {
        static Pair start(Map<String, String> env, Clock clock) {
            var all = new HashMap<>(env);
            all.put("ARBOR_DATABASE_URL", TestPostgres.newDatabaseUrl());
            all.put("ARBOR_SECRET_KEY", Base64.getEncoder().encodeToString(new byte[32]));
            ArborServer a = ArborServer.start(all, clock);
            try {
                return new Pair(a, ArborServer.start(all, clock));
            } catch (RuntimeException e) {
                a.close();
                throw e;
            }
        }

        @Override
        public void close() {
            try (a) {
                b.close();
            }
        }
    }

    @Test
    void runsStartedOnOneServerRunEachStepOnceWhileBothExecuteAndBothShowTheSameRun() throws Exception {
        int runs = 20;
        try (var receiver = new HttpReceiver();
                var servers = Pair.start(Map.of("ARBOR_OUTBOUND_ALLOW", "127.0.0.1"), Clock.systemUTC())) {
            String call = receiver.url("/twin/{{ params.n }}/");
            HttpReply pipeline = servers.a().http().post("/pipelines", """
                    {"name": "fan", "parameters": [{"name": "n", "type": "integer", "required": true}],
                     "steps": [{"id": "a", "action": "http_request", "params": {"url": "%1$sa"},
                                "retry": {"max_attempts": 2, "backoff_seconds": 1}},
                               {"id": "b", "action": "http_request", "depends_on": ["a"], "params": {"url": "%1$sb"}},
                               {"id": "c", "action": "http_request", "depends_on": ["a"], "params": {"url": "%1$sc"}},
                               {"id": "d", "action": "http_request", "depends_on": ["b", "c"],
                                "params": {"url": "%1$sd"}}]}""".formatted(call));
            assertThat(pipeline.status()).as(pipeline.body()).isEqualTo(201);
            String runsPath = "/pipelines/" + pipeline.json().path("id").asText() + "/runs";
            List<String> ids = new ArrayList<>();
            for (int n = 0; n < runs; n++) {
                // the first step fails once: its retry waits in the shared table for whichever server polls first,
                // and the steps after it run where it ran
                receiver.script("/twin/" + n + "/a", Reply.json(503, "{\"busy\": true}"));
                HttpReply started = servers.a().http().post(runsPath, "{\"params\": {\"n\": " + n + "}}");
                assertThat(started.status()).as(started.body()).isEqualTo(202);
                ids.add(started.json().path("id").asText());
            }

            for (int n = 0; n < runs; n++) {
                JsonNode run = finished(servers.b().http(), ids.get(n));
                assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
                run.path("steps")
                        .forEach(step -> assertThat(step.path("attempts").asInt())
                                .as(step.toString())
                                .isEqualTo(step.path("id").asText().equals("a") ? 2 : 1));
                assertThat(servers.a().http().get("/runs/" + ids.get(n)).body()).isEqualTo(run.toString());
                for (String step : List.of("a", "b", "c", "d")) {
                    assertThat(receiver.received("/twin/" + n + "/" + step))
                            .as("run %d step %s", n, step)
                            .hasSize(step.equals("a") ? 2 : 1);
                }
                assertThat(servers
                                .a()
                                .http()
                                .get("/runs/" + ids.get(n) + "/events?limit=100")
                                .json()
                                .path("data")
                                .findValuesAsText("status")
                                .stream()
                                .filter("completed"::equals)
                                .count())
                        .isEqualTo(5); // each step once, and the run
            }
            double onA = stepsFinished(servers.a());
            double onB = stepsFinished(servers.b());
            System.out.printf("steps finished: %.0f on server A, %.0f on server B%n", onA, onB);
            assertThat(onA + onB).isEqualTo(runs * 4.0);
        }
    }

    @Test
    void aScheduleFiresOncePerTimeWithTwoServersPolling() {
        var clock = new MovableClock();
        try (var servers = Pair.start(Map.of(), clock)) {
            String pipeline =
                    servers.a().http().post("/pipelines", """
                    {"name": "tick", "steps": [{"id": "say", "action": "log", "params": {"message": "tick"}}]}""").json().path("id").asText();
            JsonNode created = servers.b()
                    .http()
                    .post("/pipelines/" + pipeline + "/schedules", "{\"cron\": \"* * * * *\"}")
                    .json();
            String schedule = created.path("id").asText();
            // a second before the first time, so that it comes soon
            clock.advance(Duration.between(
                    clock.instant(),
                    Instant.ofEpochSecond(created.path("next_run_at").asLong()).minusSeconds(1)));
            int fires = 3;
            for (int fired = 1; fired <= fires; fired++) {
                int expected = fired;
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> servers.a()
                                        .http()
                                        .get("/schedules/" + schedule)
                                        .json()
                                        .path("run_count")
                                        .asInt()
                                >= expected);
                if (fired < fires) {
                    clock.advance(Duration.ofMinutes(1));
                }
            }
            // both servers poll twice a second: a second firing of any time would show by now
            await().pollDelay(Duration.ofSeconds(3)).until(() -> true);

            List<JsonNode> listed = new ArrayList<>();
            servers.b()
                    .http()
                    .get("/pipelines/" + pipeline + "/runs?limit=100")
                    .json()
                    .path("data")
                    .forEach(listed::add);
            Map<Long, Long> runsPerTime = listed.stream()
                    .collect(Collectors.groupingBy(
                            run -> run.at("/trigger/scheduled_for").asLong(), Collectors.counting()));
            assertThat(runsPerTime)
                    .hasSize(fires)
                    .allSatisfy((time, count) -> assertThat(count)
                            .as("runs for %s", Instant.ofEpochSecond(time))
                            .isEqualTo(1));
            assertThat(servers.b()
                            .http()
                            .get("/schedules/" + schedule)
                            .json()
                            .path("run_count")
                            .asInt())
                    .isEqualTo(fires);
        }
    }

    @Test
    void anIdempotencyKeyUsedOnOneServerReplaysOnTheOtherAndRefusesAnotherBody() {
        try (var servers = Pair.start(Map.of(), Clock.systemUTC())) {
            HttpReply first = servers.a().http().post("/projects", "{\"name\":\"twin\"}", "Idempotency-Key", "twin-1");
            HttpReply replay = servers.b().http().post("/projects", "{\"name\":\"twin\"}", "Idempotency-Key", "twin-1");
            assertThat(first.status()).isEqualTo(201);
            assertThat(replay.status()).isEqualTo(201);
            assertThat(replay.body()).isEqualTo(first.body());
            assertThat(replay.header("idempotent-replayed")).isEqualTo("true");
            assertThat(servers.b().http().get("/projects").json().path("data")).hasSize(1);

            servers.b()
                    .http()
                    .post("/projects", "{\"name\":\"other\"}", "Idempotency-Key", "twin-1")
                    .assertError(409, "idempotency_key_reused", "Idempotency-Key");
            assertThat(servers.a().http().get("/projects").json().path("data")).hasSize(1);
        }
    }

    @Test
    void aTokenRevokedOnOneServerIsRefusedThereAtOnceAndOnTheOtherWithinFiveSeconds() {
        var clock = new MovableClock();
        try (var servers = Pair.start(Map.of("ARBOR_ADMIN_TOKEN", "admin-secret-1"), clock)) {
            JsonNode created = servers.a()
                    .http()
                    .post("/auth/tokens", "{\"name\":\"ops\",\"role\":\"admin\"}", ADMIN)
                    .json();
            String[] ops = {"Authorization", "Bearer " + created.path("token").asText()};
            assertThat(servers.b().http().get("/auth/me", ops).status()).isEqualTo(200);

            servers.a().http().delete("/auth/tokens/" + created.path("id").asText(), ADMIN);
            servers.a().http().get("/auth/me", ops).assertError(401, "invalid_api_key", null);
            clock.advance(Duration.ofSeconds(5));
            servers.b().http().get("/auth/me", ops).assertError(401, "invalid_api_key", null);
        }
    }

    @Test
    void aTokenAboutToExpireIsRefreshedOnceWhenBothServersTryAtOnce() throws Exception {
        var clock = new MovableClock();
        try (var secured = SecuredMcpServer.start(3600);
                var servers = Pair.start(
                        Map.of(
                                "ARBOR_OUTBOUND_ALLOW", "127.0.0.1,localhost",
                                "ARBOR_ADMIN_TOKEN", "admin-secret-1",
                                "ARBOR_OAUTH_RETURN_HOSTS", "localhost"),
                        clock)) {
            String gateway = servers.a()
                    .http()
                    .post(
                            "/connectors/custom",
                            "{\"name\": \"Secured\", \"url\": \"" + secured.mcpUrl()
                                    + "\", \"auth_type\": \"oauth\", \"credentials\": {\"client_id\": \"arbor-console\","
                                    + " \"client_secret\": \"console-secret\"}}",
                            ADMIN)
                    .json()
                    .path("id")
                    .asText();
            String url = servers.a()
                    .http()
                    .post(
                            "/connectors/" + gateway + "/oauth/initiate",
                            "{\"return_url\": \"http://localhost:5173/connections/oauth\"}",
                            ADMIN)
                    .json()
                    .path("authorization_url")
                    .asText();
            Map<String, String> back = secured.consent(url);
            // the other server finishes what the first began, and fetches the tools with the token
            JsonNode done = servers.b()
                    .http()
                    .post(
                            "/connectors/oauth/callback",
                            "{\"code\": \"" + back.get("code") + "\", \"state\": \"" + back.get("state") + "\"}",
                            ADMIN)
                    .json();
            assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("authorized");
            assertThat(fetchTools(servers.a(), gateway).status()).isEqualTo(200);
            String first = secured.tokensSeen().getLast();

            // each round, four minutes before expiry (inside the timer's window, outside the one for use), both
            // servers' timers go off at once; rounds give the two more chances to meet at every point of a refresh
            // (before the fix of the lease and the timer, a second refresh showed within about twenty rounds)
            String previous = first;
            for (int round = 1; round <= 30; round++) {
                clock.advance(Duration.ofMinutes(56));
                var barrier = new CyclicBarrier(2);
                Function<ArborServer, CompletableFuture<Void>> refresh = server -> CompletableFuture.runAsync(() -> {
                    try {
                        barrier.await();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                    server.refreshOAuthTokens();
                });
                CompletableFuture.allOf(refresh.apply(servers.a()), refresh.apply(servers.b()))
                        .join();

                assertThat(secured.tokenRequests().stream().filter(r -> r.startsWith("refresh_token")))
                        .as("refreshes after round %d", round)
                        .hasSize(round);
                JsonNode statusA = servers.a()
                        .http()
                        .get("/connectors/" + gateway + "/oauth/status", ADMIN)
                        .json();
                assertThat(statusA.path("status").asText()).isEqualTo("authorized");
                assertThat(statusA.path("refreshed_at").isNumber()).isTrue();
                assertThat(servers.b()
                                .http()
                                .get("/connectors/" + gateway + "/oauth/status", ADMIN)
                                .json())
                        .isEqualTo(statusA);
                List<String> used = new ArrayList<>();
                for (ArborServer server : List.of(servers.a(), servers.b())) {
                    assertThat(fetchTools(server, gateway).status()).isEqualTo(200);
                    used.add(secured.tokensSeen().getLast());
                }
                assertThat(used.getFirst()).isNotEqualTo(previous);
                assertThat(used.getLast()).isEqualTo(used.getFirst());
                previous = used.getFirst();
            }
        }
    }

    @Test
    void aWebhookDeliveryTheProviderSendsToBothServersIsOneDeliveryAndOneRun() {
        try (var servers = Pair.start(Map.of(), Clock.systemUTC())) {
            EventsOnOne events = EventsOnOne.set(servers.a().http());
            String deliveryId = UUID.randomUUID().toString();

            HttpReply first = events.hook().deliver(servers.a().http(), deliveryId);
            HttpReply again = events.hook().deliver(servers.b().http(), deliveryId);

            assertThat(first.status()).as(first.body()).isEqualTo(200);
            assertThat(again.status()).as(again.body()).isEqualTo(200);
            assertThat(again.json().path("duplicate").asBoolean()).isTrue();
            String delivery = first.json().path("delivery_id").asText();
            assertThat(again.json().path("delivery_id").asText()).isEqualTo(delivery);
            events.awaitOneRun(servers.b().http(), delivery);
            assertThat(events.deliveries(servers.b().http())).isEqualTo(1);
        }
    }

    @Test
    void aDeliveryBothServersDispatchAtOnceStartsOneRun() throws Exception {
        var clock = new MovableClock();
        String url = TestPostgres.newDatabaseUrl();
        var env = new HashMap<String, String>();
        env.put("ARBOR_DATABASE_URL", url);
        env.put("ARBOR_SECRET_KEY", Base64.getEncoder().encodeToString(new byte[32]));
        try (ArborServer a = ArborServer.start(env, clock);
                Connection lock = DriverManager.getConnection(url);
                // another session: one transaction sees one snapshot of pg_stat_activity
                Connection watch = DriverManager.getConnection(url)) {
            EventsOnOne events = EventsOnOne.set(a.http());
            // firings cannot be written until the lock goes: each dispatch of the round waits at its firing
            lock.setAutoCommit(false);
            try (Statement statement = lock.createStatement()) {
                statement.execute("LOCK TABLE trigger_firings IN EXCLUSIVE MODE");
            }
            HttpReply delivered =
                    events.hook().deliver(a.http(), UUID.randomUUID().toString());
            assertThat(delivered.status()).as(delivered.body()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> firingsWaiting(watch) == 1);
            // the second server's start-up sweep takes the round the first has in hand
            clock.advance(Duration.ofSeconds(1));
            try (ArborServer b = ArborServer.start(env, clock)) {
                await().atMost(Duration.ofSeconds(60)).until(() -> firingsWaiting(watch) == 2);
                lock.commit();

                String delivery = delivered.json().path("delivery_id").asText();
                events.awaitOneRun(b.http(), delivery);
                assertThat(events.deliveries(a.http())).isEqualTo(1);
            }
        }
    }

    /** Sessions of this database waiting for a lock to write a trigger firing. */
    private static int firingsWaiting(Connection connection) throws Exception {
        try (var statement = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity "
                        + "WHERE datname = current_database() AND wait_event_type = 'Lock' "
                        + "AND query LIKE 'INSERT INTO trigger_firings%'");
                var rows = statement.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    /** A GitHub connection of a project, and a trigger on its issues that starts a one-step pipeline. */
    private record EventsOnOne(GitHubHook hook, String pipeline) {
        static EventsOnOne set(TestServer http) {
            String project = http.post("/projects", "{\"name\": \"events\"}")
                    .json()
                    .path("id")
                    .asText();
            GitHubHook hook = GitHubHook.connect(http, project);
            String pipeline = http.post("/pipelines", """
                    {"name": "noted", "steps": [{"id": "note", "action": "set_output",
                      "params": {"key": "seen", "value": "{{ event.payload.issue.title }}"}}]}""").json().path("id").asText();
            HttpReply trigger = http.post(
                    "/triggers",
                    "{\"name\": \"on issues\", \"project_id\": \"" + project + "\", \"connection_id\": \""
                            + hook.connectionId() + "\", \"event_types\": [\"issues.opened\"], "
                            + "\"target\": {\"pipeline_id\": \"" + pipeline + "\"}}");
            assertThat(trigger.status()).as(trigger.body()).isEqualTo(201);
            return new EventsOnOne(hook, pipeline);
        }

        /** Waits for the delivery's run to complete, and that it is the pipeline's only run and firing. */
        void awaitOneRun(TestServer http, String deliveryId) {
            String path = "/events/shared-connections/" + hook.connectionId() + "/deliveries/" + deliveryId;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> http.get(path)
                            .json()
                            .at("/firings/0/status")
                            .asText()
                            .equals("done"));
            JsonNode delivery = http.get(path).json();
            assertThat(delivery.path("firings").size()).as(delivery.toString()).isEqualTo(1);
            assertThat(delivery.at("/dispatch/rounds").asInt()).isEqualTo(1);
            String run = delivery.at("/firings/0/run_id").asText();
            assertThat(finished(http, run).path("status").asText()).isEqualTo("completed");
            var runs = new ArrayList<String>();
            http.get("/pipelines/" + pipeline + "/runs?limit=100")
                    .json()
                    .path("data")
                    .forEach(listed -> runs.add(listed.path("id").asText()));
            assertThat(runs).containsExactly(run);
        }

        int deliveries(TestServer http) {
            return http.get("/events/shared-connections/" + hook.connectionId() + "/deliveries")
                    .json()
                    .path("data")
                    .size();
        }
    }

    private static HttpReply fetchTools(ArborServer server, String gateway) {
        return server.http().action("/connectors/" + gateway + "/fetch-tools", ADMIN);
    }

    private static JsonNode finished(TestServer http, String runId) {
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    String status =
                            http.get("/runs/" + runId).json().path("status").asText();
                    return !status.equals("queued") && !status.equals("running");
                });
        return http.get("/runs/" + runId).json();
    }

    /** The steps that ended on this server, by its own metrics. */
    private static double stepsFinished(ArborServer server) {
        Matcher counts = STEPS_FINISHED.matcher(server.http().get("/metrics").body());
        double sum = 0;
        while (counts.find()) {
            sum += Double.parseDouble(counts.group(1));
        }
        return sum;
    }
}
