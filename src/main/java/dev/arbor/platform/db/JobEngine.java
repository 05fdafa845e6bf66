package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerClient;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.serializer.Serializer;
import com.github.kagkarlsson.scheduler.task.Task;
import dev.arbor.platform.ids.Ids;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;

/**
 * A db-scheduler engine on a table of its own, with the settings every engine of ours shares. An engine must own its
 * table: one that polls a table meets the others' task names, which it cannot run, and db-scheduler deletes every
 * execution of such a name 14 days after the due time of the first it met (at once for one two weeks overdue).
 */
public final class JobEngine {
    /** The table's name goes into SQL text: a plain name, and one of ours. */
    private static final Pattern TABLE = Pattern.compile("[a-z][a-z_]*_jobs");

    private final Database database;
    private final String table;
    private final Scheduler scheduler;

    /**
     * @param table the engine's own table, created by a migration with db-scheduler's columns
     * @param threads executions running at once on this server
     * @param taskData how the tasks' data is written to the table
     */
    public JobEngine(
            Database database, String table, int threads, Serializer taskData, Clock clock, List<Task<?>> tasks) {
        this.database = requireNonNull(database, "database");
        this.table = requireNonNull(table, "table");
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException("not a job table: " + table);
        }
        requireNonNull(clock, "clock");
        var builder = Scheduler.create(database.dataSource(), List.copyOf(tasks))
                .tableName(table)
                .serializer(requireNonNull(taskData, "taskData"))
                .executorService(Executors.newVirtualThreadPerTaskExecutor())
                .threads(threads)
                .pollingInterval(Duration.ofMillis(500))
                .enableImmediateExecution()
                .heartbeatInterval(Duration.ofSeconds(10))
                .missedHeartbeatsLimit(4)
                .shutdownMaxWait(Duration.ofSeconds(5))
                .addSchedulerListener(database.jobEngineLog().listener())
                .schedulerName(new SchedulerName.Fixed(nodeName()))
                .clock(clock::instant);
        if (!database.dialect().singleNode()) {
            builder.pollUsingLockAndFetch(0.5, 1.0); // SELECT ... FOR UPDATE SKIP LOCKED: nodes never race for a row
        }
        this.scheduler = builder.build();
    }

    /** What the engine's owner schedules and cancels executions through. */
    public SchedulerClient client() {
        return scheduler;
    }

    /** Starts executing, the executions a stopped server left behind included. */
    public void start() {
        if (database.dialect().singleNode()) {
            // one process per SQLite database: whatever is marked picked was picked by a process that is gone
            database.update(handle -> handle.createUpdate("UPDATE " + table
                            + " SET picked = :no, picked_by = NULL, last_heartbeat = NULL, version = version + 1"
                            + " WHERE picked = :yes")
                    .bind("no", false)
                    .bind("yes", true)
                    .execute());
        }
        scheduler.start();
    }

    /** Stops executing; what is due stays in the table for the next start. */
    public void stop() {
        scheduler.stop();
    }

    private static String nodeName() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "arbor";
        }
        // two servers on one host (tests, a blue-green switch) must not share a name: a node's picks are its own
        return (host.length() > 40 ? host.substring(0, 40) : host) + "-"
                + HexFormat.of().formatHex(Ids.randomBytes(4));
    }
}
