package dev.arbor.pipelines.schedules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.arbor.ArborServer;
import dev.arbor.pipelines.runs.RunContract;
import dev.arbor.testing.HttpReply;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestServer;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Schedules: cron in a time zone across daylight-saving changes (on a clock the test moves), pause, resume, run now,
 * and their checks. One firing per time with two servers on one PostgreSQL is in {@code TwoServersOnPostgresTest}.
 */
class ScheduleTest {
    private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
    private static final String PIPELINE = """
            {"name": "nightly", "parameters": [{"name": "env", "type": "string", "required": true}],
             "steps": [{"id": "say", "action": "log", "params": {"message": "{{ event.type }} {{ params.env }}"}}]}""";

    @Test
    void aTimeThatHappensTwiceFiresOnceAndHourlyKeepsEveryRealHour() {
        var daily = CronSchedule.parse("30 2 * * *", BERLIN);
        assertThat(daily.next(Instant.parse("2027-10-30T12:00:00Z"), 3))
                .containsExactly(
                        Instant.parse("2027-10-31T00:30:00Z"),
                        Instant.parse("2027-11-01T01:30:00Z"),
                        Instant.parse("2027-11-02T01:30:00Z"));
        var hourly = CronSchedule.parse("0 * * * *", BERLIN);
        assertThat(hourly.next(Instant.parse("2027-10-30T23:30:00Z"), 3))
                .containsExactly(
                        Instant.parse("2027-10-31T00:00:00Z"),
                        Instant.parse("2027-10-31T01:00:00Z"),
                        Instant.parse("2027-10-31T02:00:00Z"));
        // clocks go forward: 02:30 does not happen on 28 March, so that day's firing is when the clocks jump
        assertThat(daily.next(Instant.parse("2027-03-26T12:00:00Z"), 3))
                .containsExactly(
                        Instant.parse("2027-03-27T01:30:00Z"),
                        Instant.parse("2027-03-28T01:00:00Z"),
                        Instant.parse("2027-03-29T00:30:00Z"));
        assertThat(CronSchedule.parse("*/30 * * * *", BERLIN).next(Instant.parse("2027-03-28T00:15:00Z"), 3))
                .containsExactly(
                        Instant.parse("2027-03-28T00:30:00Z"),
                        Instant.parse("2027-03-28T01:00:00Z"),
                        Instant.parse("2027-03-28T01:30:00Z"));
    }

    @Test
    void aScheduleFiresAcrossTheSpringChangeOnceAndShowsItsNextRunsInLocalTime() {
        var clock = new MovableClock();
        try (var server = ArborServer.start(Map.of(), clock)) {
            // twenty seconds before the clocks in Berlin jump from 02:00 to 03:00
            clock.advance(Duration.between(clock.instant(), Instant.parse("2027-03-28T00:59:40Z")));
            TestServer http = server.http();
            String pipeline =
                    http.post("/pipelines", PIPELINE).json().path("id").asText();
            HttpReply created = http.post("/pipelines/" + pipeline + "/schedules", """
                    {"cron": "30 2 * * *", "timezone": "Europe/Berlin", "params": {"env": "prod"}}""");
            assertThat(created.status()).as(created.body()).isEqualTo(201);
            JsonNode schedule = created.json();
            assertThat(schedule.path("status").asText()).isEqualTo("active");
            assertThat(schedule.path("next_run_at").asLong())
                    .isEqualTo(Instant.parse("2027-03-28T01:00:00Z").getEpochSecond());
            assertThat(schedule.path("next_runs").findValuesAsText("local"))
                    .startsWith("2027-03-28T03:00+02:00", "2027-03-29T02:30+02:00", "2027-03-30T02:30+02:00");
            String id = schedule.path("id").asText();

            await().atMost(Duration.ofSeconds(40))
                    .until(() -> http.get("/schedules/" + id)
                                    .json()
                                    .path("run_count")
                                    .asInt()
                            == 1);
            JsonNode fired = http.get("/schedules/" + id).json();
            assertThat(fired.path("next_run_at").asLong())
                    .isEqualTo(Instant.parse("2027-03-29T00:30:00Z").getEpochSecond());
            JsonNode run = RunContract.finished(http, fired.path("last_run_id").asText());
            assertThat(run.path("status").asText()).as(run.toString()).isEqualTo("completed");
            assertThat(run.at("/trigger/scheduled_for").asLong())
                    .isEqualTo(Instant.parse("2027-03-28T01:00:00Z").getEpochSecond());
            assertThat(http.get("/runs/" + run.path("id").asText() + "/events")
                            .json()
                            .path("data")
                            .findValuesAsText("message"))
                    .contains("schedule prod");
            assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                    .hasSize(1);
        }
    }

    @Test
    void aPausedPipelinesScheduleSkipsItsFiringAndSaysWhyAndFiresAgainOnceResumed() {
        var clock = new MovableClock();
        try (var server = ArborServer.start(Map.of(), clock)) {
            clock.advance(Duration.between(clock.instant(), Instant.parse("2027-05-04T09:59:50Z")));
            TestServer http = server.http();
            String pipeline =
                    http.post("/pipelines", PIPELINE).json().path("id").asText();
            assertThat(http.action("/pipelines/" + pipeline + "/pause").status())
                    .isEqualTo(200);
            String id = http.post("/pipelines/" + pipeline + "/schedules", """
                            {"cron": "0 * * * *", "params": {"env": "prod"}}""")
                    .json()
                    .path("id")
                    .asText();

            await().atMost(Duration.ofSeconds(40))
                    .until(() -> !http.get("/schedules/" + id)
                            .json()
                            .path("last_run_at")
                            .isNull());
            JsonNode skipped = http.get("/schedules/" + id).json();
            assertThat(skipped.path("last_error").asText())
                    .isEqualTo("Skipped: pipeline " + pipeline + " is paused, so this firing started no run.");
            assertThat(skipped.path("run_count").asInt()).isZero();
            assertThat(skipped.path("next_run_at").asLong())
                    .isEqualTo(Instant.parse("2027-05-04T11:00:00Z").getEpochSecond());
            assertThat(http.get("/pipelines/" + pipeline + "/runs").json().path("data"))
                    .isEmpty();

            assertThat(http.action("/pipelines/" + pipeline + "/resume").status())
                    .isEqualTo(200);
            clock.advance(Duration.ofHours(1));
            await().atMost(Duration.ofSeconds(40))
                    .until(() -> http.get("/schedules/" + id)
                                    .json()
                                    .path("run_count")
                                    .asInt()
                            == 1);
            assertThat(http.get("/schedules/" + id).json().path("last_error").isNull())
                    .isTrue();
        }
    }

    @Test
    void aScheduleSaysWhatEachFieldMustBe() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String schedules = "/pipelines/"
                    + http.post("/pipelines", PIPELINE).json().path("id").asText() + "/schedules";
            assertThat(http.post(schedules, "{}")
                            .assertError(400, "missing_field", "cron")
                            .path("details")
                            .findValuesAsText("message"))
                    .contains("`cron` is required: five fields, minute hour "
                            + "day-of-month month day-of-week, such as \"30 2 * * *\".");
            JsonNode error = http.post(schedules, """
                    {"every": 1, "name": " ", "cron": 5, "timezone": "Mars/Olympus", "enabled": "yes"}""").assertError(400, "invalid_field", "every");
            assertThat(error.path("details").findValuesAsText("message"))
                    .contains(
                            "`every` is not a field of a schedule (its fields: cron, enabled, name, params, timezone).",
                            "`name` must be a non-empty string of at most 200 characters.",
                            "`cron` must be a cron expression of five fields.",
                            "`timezone` must be an IANA time zone such as Europe/Berlin or UTC ('Mars/Olympus' is not one).",
                            "`enabled` must be true or false.");
        }
    }

    @Test
    void schedulesPauseResumeRunNowAndAreCheckedAndDeletedWithTheirPipeline() {
        try (var server = ArborServer.start(Map.of())) {
            TestServer http = server.http();
            String pipeline =
                    http.post("/pipelines", PIPELINE).json().path("id").asText();
            String schedules = "/pipelines/" + pipeline + "/schedules";
            http.post(schedules, "{\"params\": {\"env\": \"x\"}}").assertError(400, "missing_field", "cron");
            http.post(schedules, "{\"cron\": \"61 * * * *\", \"params\": {\"env\": \"x\"}}")
                    .assertError(400, "invalid_field", "cron");
            http.post(schedules, "{\"cron\": \"0 * * * *\", \"timezone\": \"Mars/Olympus\", \"params\": {\"env\": 1}}")
                    .assertError(400, "invalid_field", "timezone");
            http.post(schedules, "{\"cron\": \"0 * * * *\"}").assertError(400, "missing_field", "params.env");
            http.post("/pipelines/pl_nope/schedules", "{\"cron\": \"0 * * * *\"}")
                    .assertError(404, "pipeline_not_found", "pipeline_id");

            JsonNode created = http.post(schedules, """
                    {"name": "hourly", "cron": "0 * * * *", "params": {"env": "staging"}}""").json();
            String id = created.path("id").asText();
            assertThat(created.path("timezone").asText()).isEqualTo("UTC");
            assertThat(created.path("next_runs")).hasSize(5);
            assertThat(http.get("/schedules/" + id + "?count=12").json().path("next_runs"))
                    .hasSize(12);
            http.get("/schedules/" + id + "?count=0").assertError(400, "invalid_parameter", "count");

            JsonNode paused = http.action("/schedules/" + id + "/pause").json();
            assertThat(paused.path("status").asText()).isEqualTo("paused");
            assertThat(paused.path("next_run_at").isNull()).isTrue();
            assertThat(paused.path("next_runs")).isEmpty();
            JsonNode resumed = http.action("/schedules/" + id + "/resume").json();
            assertThat(resumed.path("status").asText()).isEqualTo("active");
            assertThat(resumed.path("next_run_at").asLong() % 3600).isZero();

            JsonNode patched = http.patch(
                            "/schedules/" + id, "{\"cron\": \"15 6 * * 1\", \"timezone\": " + "\"America/New_York\"}")
                    .json();
            assertThat(patched.path("next_runs").findValuesAsText("local"))
                    .allSatisfy(local -> assertThat(local).contains("T06:15"));
            http.patch("/schedules/" + id, "{\"enabled\": false}").assertError(400, "read_only_field", "enabled");

            HttpReply now = http.action("/schedules/" + id + "/run");
            assertThat(now.status()).isEqualTo(202);
            JsonNode run = RunContract.finished(http, now.json().path("id").asText());
            assertThat(run.at("/trigger/manual").asBoolean()).isTrue();
            assertThat(run.path("params").toString()).isEqualTo("{\"env\":\"staging\"}");
            assertThat(http.get("/schedules/" + id).json().path("run_count").asInt())
                    .isZero();

            assertThat(http.get(schedules).json().path("data")).hasSize(1);
            http.delete("/pipelines/" + pipeline);
            http.get("/schedules/" + id).assertError(404, "schedule_not_found", "schedule_id");
            http.action("/schedules/" + id + "/pause").assertError(404, "schedule_not_found", "schedule_id");
        }
    }
}
