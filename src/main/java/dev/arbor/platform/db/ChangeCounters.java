package dev.arbor.platform.db;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.timers.Repeating;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells in-memory views of a table when another server changed it. Triggers move a table's counter in
 * {@code change_counters} in the transaction of every write, so one small read says whether anything changed; on a
 * database servers share, a background thread reads the counters every interval and calls a table's listener when
 * its counter moved. A view therefore follows other servers' changes within an interval plus its own reload; it
 * follows this server's changes at once, since the writer refreshes it itself. On SQLite one server holds the
 * database and nothing is polled.
 *
 * <p>Polling rather than PostgreSQL's {@code LISTEN/NOTIFY}: a notification sent while the listening connection is
 * being replaced (a restart of the database, a pool's recycling) is lost for good, whereas a counter read after any
 * outage still shows the change; the read costs one indexed row per table, off the request path.
 */
public final class ChangeCounters implements AutoCloseable {
    /** How often a server sharing the database looks at the counters. */
    public static final Duration POLL_EVERY = Duration.ofMillis(250);

    private static final Logger LOG = LoggerFactory.getLogger(ChangeCounters.class);

    /** The tables whose writes are counted. */
    public enum Table {
        DEPLOYMENTS("deployments"),
        ROUTERS("routers"),
        MODELS("models"),
        MODEL_PRICES("model_prices"),
        BUDGETS("budgets");

        private final String topic;

        Table(String topic) {
            this.topic = topic;
        }
    }

    private final Database database;
    private final Duration every;
    private final Map<Table, Runnable> listeners = new EnumMap<>(Table.class);
    /** The counters as last read; none at first, so that the first read reloads every view once. */
    private final Map<Table, Long> seen = new EnumMap<>(Table.class);

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-change-counters").factory());

    public ChangeCounters(Database database) {
        this(database, POLL_EVERY);
    }

    ChangeCounters(Database database, Duration every) {
        this.database = requireNonNull(database, "database");
        this.every = requireNonNull(every, "every");
    }

    /** Calls {@code reload} (on the polling thread) when another server changed {@code table}; before {@link #start}. */
    public synchronized void watch(Table table, Runnable reload) {
        listeners.put(requireNonNull(table, "table"), requireNonNull(reload, "reload"));
    }

    /** Starts polling, on a database other servers may share. */
    public void start() {
        if (database.dialect().singleNode()) {
            return;
        }
        Repeating.every(timer, every, every, "the change counters' poll", this::poll);
    }

    private void poll() {
        Map<String, Long> counters;
        try {
            counters = database.read(handle -> handle.createQuery("SELECT topic, version FROM change_counters")
                    .map((rs, ctx) -> Map.entry(rs.getString("topic"), rs.getLong("version")))
                    .collectToMap(Map.Entry::getKey, Map.Entry::getValue));
        } catch (RuntimeException e) {
            LOG.debug("the change counters could not be read; the next look tries again: {}", e.getMessage());
            return;
        }
        Map<Table, Runnable> current;
        synchronized (this) {
            current = Map.copyOf(listeners);
        }
        for (var listener : current.entrySet()) {
            Table table = listener.getKey();
            Long version = counters.get(table.topic);
            if (version == null || version.equals(seen.get(table))) {
                continue;
            }
            try {
                listener.getValue().run();
                seen.put(table, version); // after the reload: one that failed is tried again at the next look
            } catch (RuntimeException e) {
                LOG.warn("the in-memory view of {} could not be reloaded; the next look tries again", table.topic, e);
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
