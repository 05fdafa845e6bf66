package dev.arbor.platform.db;

import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.MovableClock;
import dev.arbor.testing.TestServer;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job engines (runs, schedules, triggers) each poll a table of their own. db-scheduler deletes every execution of
 * a task name it cannot run 14 days after the due time of the first one it met: engines polling one table deleted
 * each other's work, at once for an execution two weeks overdue, and within two weeks for any other.
 */
class JobEnginesApartTest {
    private static final String PIPELINE = """
            {"name": "hourly", "steps": [{"id": "say", "action": "log", "params": {"message": "tick"}}]}""";
    /** How often an engine sweeps for executions it cannot run (twice its heartbeat), and a little more. */
    private static final Duration SWEEP = Duration.ofSeconds(25);

    @TempDir
    Path data;

    @Test
    void aFiringTwoWeeksOverdueIsMadeUpAndTheScheduleFiresOnThoughTheOtherEnginesMetIt() throws Exception {
        var clock = new MovableClock();
        Map<String, String> env = Map.of("ARBOR_DATA", data.toString());
        String schedule;
        try (var server = ArborServer.start(env, clock)) {
            TestServer http = server.http();
            String pipeline =
                    http.post("/pipelines", PIPELINE).json().path("id").asText();
            schedule = http.post("/pipelines/" + pipeline + "/schedules", """
                            {"cron": "0 * * * *", "timezone": "UTC", "params": {}}""")
                    .json()
                    .path("id")
                    .asText();
        }
        clock.advance(Duration.ofDays(15)); // no server runs for two weeks
        try (var server = ArborServer.start(env, clock)) {
            TestServer http = server.http();
            await().atMost(Duration.ofSeconds(30)).until(() -> runCount(http, schedule) == 1);
            // every engine polls twice a second and sweeps meanwhile: the next firing stays armed
            await().during(SWEEP).atMost(SWEEP.plusSeconds(15)).until(() -> armedFirings() == 1);
            clock.advance(Duration.ofHours(1));
            await().atMost(Duration.ofSeconds(30)).until(() -> runCount(http, schedule) == 2);
        }
    }

    private static int runCount(TestServer http, String schedule) {
        return http.get("/schedules/" + schedule).json().path("run_count").asInt();
    }

    private long armedFirings() throws SQLException {
        try (var db = DriverManager.getConnection("jdbc:sqlite:" + data.resolve("arbor.db"));
                var count = db.createStatement()
                        .executeQuery("SELECT COUNT(*) FROM schedule_jobs WHERE task_name = 'pipeline-schedule'")) {
            return count.next() ? count.getLong(1) : 0;
        }
    }
}
