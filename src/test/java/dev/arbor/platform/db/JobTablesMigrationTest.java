package dev.arbor.platform.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.arbor.testing.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * V48 gives each job engine a table of its own: an upgrade moves every execution pending in the table the engines
 * shared into its engine's table, as it was (due time, data, who had picked it), and drops the shared table.
 */
class JobTablesMigrationTest {
    private static final Instant DUE = Instant.parse("2027-01-04T10:00:00Z");

    @TempDir
    Path temp;

    /** An execution as the engines store it; its data as text, to compare by value. */
    record Execution(
            String taskName,
            String instance,
            String data,
            Instant due,
            boolean picked,
            String pickedBy,
            long version) {}

    private static final List<Execution> PIPELINE_JOBS = List.of(
            new Execution("pipeline-run-deadline", "run_1.1", "{\"runId\":\"run_1\"}", DUE, false, null, 1),
            new Execution("pipeline-step", "run_1.fetch.1", "{\"stepId\":\"fetch\"}", DUE, true, "gone-1234", 3));
    private static final List<Execution> SCHEDULE_JOBS = List.of(new Execution(
            "pipeline-schedule", "sch_1.2", "{\"scheduleId\":\"sch_1\"}", DUE.plusSeconds(60), false, null, 2));
    private static final List<Execution> TRIGGER_JOBS = List.of(
            new Execution("trigger-delivery", "tfr_1", null, DUE, false, null, 1),
            new Execution("trigger-window", "twn_1", null, DUE.plusSeconds(30), false, null, 1));
    /** A task name no release of Arbor has used: nothing would ever run it. */
    private static final Execution STRANGER = new Execution("someone-else", "x", null, DUE, false, null, 1);

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void anUpgradeMovesEachEnginesPendingExecutionsIntoItsOwnTable(Dialect dialect) throws SQLException {
        String url =
                dialect == Dialect.SQLITE ? "jdbc:sqlite:" + temp.resolve("arbor.db") : TestPostgres.newDatabaseUrl();
        Flyway.configure()
                .dataSource(url, null, null)
                .locations(dialect.migrations())
                .target("47")
                .load()
                .migrate();
        try (Connection before = DriverManager.getConnection(url)) {
            for (List<Execution> executions : List.of(PIPELINE_JOBS, SCHEDULE_JOBS, TRIGGER_JOBS, List.of(STRANGER))) {
                for (Execution execution : executions) {
                    insert(before, execution);
                }
            }
        }

        try (Database db = dialect == Dialect.SQLITE
                ? Database.openSqlite(temp.resolve("arbor.db"))
                : Database.openPostgres(url)) {
            assertThat(executions(db, "pipeline_jobs")).containsExactlyElementsOf(PIPELINE_JOBS);
            assertThat(executions(db, "schedule_jobs")).containsExactlyElementsOf(SCHEDULE_JOBS);
            assertThat(executions(db, "trigger_jobs")).containsExactlyElementsOf(TRIGGER_JOBS);
            assertThatThrownBy(() -> executions(db, "scheduled_tasks"))
                    .as("the shared table is gone")
                    .hasMessageContaining("scheduled_tasks");
        }
    }

    private static void insert(Connection db, Execution execution) throws SQLException {
        try (var insert = db.prepareStatement("INSERT INTO scheduled_tasks (task_name, task_instance, task_data, "
                + "execution_time, picked, picked_by, version) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
            insert.setString(1, execution.taskName());
            insert.setString(2, execution.instance());
            insert.setBytes(
                    3, execution.data() == null ? null : execution.data().getBytes(StandardCharsets.UTF_8));
            insert.setTimestamp(4, Timestamp.from(execution.due()));
            insert.setBoolean(5, execution.picked());
            insert.setString(6, execution.pickedBy());
            insert.setLong(7, execution.version());
            insert.executeUpdate();
        }
    }

    private static List<Execution> executions(Database db, String table) {
        return db.read(handle -> handle.createQuery("SELECT task_name, task_instance, task_data, execution_time, "
                        + "picked, picked_by, version FROM " + table + " ORDER BY task_name")
                .map((row, context) -> {
                    byte[] data = row.getBytes("task_data");
                    return new Execution(
                            row.getString("task_name"),
                            row.getString("task_instance"),
                            data == null ? null : new String(data, StandardCharsets.UTF_8),
                            row.getTimestamp("execution_time").toInstant(),
                            row.getBoolean("picked"),
                            row.getString("picked_by"),
                            row.getLong("version"));
                })
                .list());
    }
}
