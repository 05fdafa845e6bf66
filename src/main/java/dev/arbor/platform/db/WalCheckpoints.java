package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies SQLite's write-ahead log into the database on a thread of its own, shortly after writes. Left to SQLite, the
 * commit that crosses the log's threshold does it, with two syncs to disk, while every writer behind it waits; here
 * a commit only appends to the log. The copy does not block readers or the writer (a passive checkpoint), and the
 * log starts over once a copy has taken all of it.
 */
final class WalCheckpoints implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WalCheckpoints.class);
    private static final long DELAY_MILLIS = 100;

    private final DataSource connections;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("arbor-sqlite-checkpoint").daemon().factory());
    private final AtomicBoolean scheduled = new AtomicBoolean();

    /** @param connections where a checkpoint gets a connection (not the writer's: it would wait for the writer) */
    WalCheckpoints(DataSource connections) {
        this.connections = requireNonNull(connections, "connections");
    }

    /** After a write: a checkpoint runs shortly, one for all the writes until then. */
    void soon() {
        if (scheduled.compareAndSet(false, true)) {
            try {
                var _ = thread.schedule(this::run, DELAY_MILLIS, TimeUnit.MILLISECONDS); // run logs its failure
            } catch (RejectedExecutionException e) {
                scheduled.set(false); // closing: the last connection to close checkpoints
            }
        }
    }

    private void run() {
        scheduled.set(false); // a write from now on asks for the next one
        try (Connection connection = connections.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("PRAGMA wal_checkpoint(PASSIVE)");
        } catch (SQLException e) {
            LOG.warn(
                    "checkpointing the database's write-ahead log failed (the next write tries again): {}",
                    e.toString());
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("a checkpoint of the write-ahead log was still running at close");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
