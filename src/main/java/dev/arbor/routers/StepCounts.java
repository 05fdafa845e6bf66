package dev.arbor.routers;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.arbor.platform.db.Database;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Step counts, per router, step, name and hour, in the database: each count adds up in memory first and is written
 * at most every {@value #FLUSH_MILLIS} ms (off the request's thread), and before each read of them, so that a request
 * pays no write for being counted. Each count is also a {@code /metrics} counter,
 * {@code arbor_router_step_events_total{router, step, name}}.
 */
final class StepCounts implements StepCounter {
    private static final Logger LOG = LoggerFactory.getLogger(StepCounts.class);
    private static final long FLUSH_MILLIS = 2_000;
    private static final long HOUR = Duration.ofHours(1).toMillis();

    private record Key(String routerId, String stepId, String name, long hour) {}

    /** One count of a router's step, summed over the hours asked. */
    @JsonPropertyOrder({"step_id", "name", "count"})
    record Count(
            @JsonProperty("step_id") String stepId,
            @JsonProperty("name") String name,
            @JsonProperty("count") long count) {}

    private final Database database;
    private final Clock clock;
    private final MeterRegistry meters;
    private final ConcurrentHashMap<Key, Long> pending = new ConcurrentHashMap<>();
    private final ReentrantLock flushing = new ReentrantLock();
    private final AtomicLong flushedAt;

    StepCounts(Database database, Clock clock, MeterRegistry meters) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.meters = requireNonNull(meters, "meters");
        this.flushedAt = new AtomicLong(clock.millis());
    }

    @Override
    public void count(String routerId, String stepId, String name, long amount) {
        long now = clock.millis();
        pending.merge(new Key(routerId, stepId, name, now - now % HOUR), amount, Long::sum);
        Counter.builder("arbor_router_step_events")
                .description("What router steps did: cache hits, misses and saved tokens; guardrail findings, blocks")
                .tag("router", routerId)
                .tag("step", stepId)
                .tag("name", name)
                .register(meters)
                .increment(amount);
        long last = flushedAt.get();
        if (now - last >= FLUSH_MILLIS && flushedAt.compareAndSet(last, now)) {
            Thread.startVirtualThread(this::flushInBackground);
        }
    }

    /** The router's counts since {@code since} (from the start of its hour), by step and name. */
    List<Count> since(String routerId, Instant since) {
        flush();
        long from = since.toEpochMilli() - since.toEpochMilli() % HOUR;
        return database.read(handle -> handle.createQuery("SELECT step_id, name, SUM(amount) FROM router_step_counts"
                        + " WHERE router_id = :router AND hour >= :from GROUP BY step_id, name ORDER BY step_id, name")
                .bind("router", routerId)
                .bind("from", from)
                .map((rs, ctx) -> new Count(rs.getString(1), rs.getString(2), rs.getLong(3)))
                .list());
    }

    private void flushInBackground() {
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.warn("Router step counts could not be written; they are tried again at the next flush", e);
        }
    }

    /** Writes what was counted since the last flush; counts taken meanwhile wait for the next. */
    void flush() {
        flushing.lock();
        try {
            var taken = new ArrayList<Map.Entry<Key, Long>>();
            for (Key key : List.copyOf(pending.keySet())) {
                Long amount = pending.remove(key);
                if (amount != null && amount != 0) {
                    taken.add(Map.entry(key, amount));
                }
            }
            if (taken.isEmpty()) {
                return;
            }
            try {
                write(taken);
            } catch (RuntimeException e) { // kept for the next flush rather than lost
                taken.forEach(count -> pending.merge(count.getKey(), count.getValue(), Long::sum));
                throw e;
            }
        } finally {
            flushing.unlock();
        }
    }

    private void write(List<Map.Entry<Key, Long>> taken) {
        database.write(handle -> {
            for (Map.Entry<Key, Long> count : taken) {
                handle.createUpdate("INSERT INTO router_step_counts (router_id, step_id, name, hour, amount)"
                                + " VALUES (:router, :step, :name, :hour, :amount)"
                                + " ON CONFLICT (router_id, step_id, name, hour)"
                                + " DO UPDATE SET amount = router_step_counts.amount + excluded.amount")
                        .bind("router", count.getKey().routerId())
                        .bind("step", count.getKey().stepId())
                        .bind("name", count.getKey().name())
                        .bind("hour", count.getKey().hour())
                        .bind("amount", count.getValue())
                        .execute();
            }
            return null;
        });
    }
}
