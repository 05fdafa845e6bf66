package dev.arbor.inference.usage;

import static java.util.Objects.requireNonNull;

import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.db.Database;
import dev.arbor.routers.RouterUsage;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every routed request's usage row, written off the request path: a request queues its row; one thread writes what
 * queued in one batch a few times a second. No row is dropped while the server runs: a full queue (the database far
 * behind) makes the request that ends wait until the writer has room, so that requests slow to the pace the database
 * writes at ({@code arbor_routing_usage_waits_total} counts them), and a batch that fails is written again, after a
 * pause that doubles up to {@link #MAX_RETRY_PAUSE}, until it is stored. Only rows still unwritten when the server
 * stops are lost, and counted ({@code arbor_routing_usage_dropped_total}). The same thread removes rows older than
 * {@link #RETENTION} once an hour.
 */
public final class UsageLog implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(UsageLog.class);
    private static final int QUEUE = 65_536;
    private static final Duration MAX_RETRY_PAUSE = Duration.ofSeconds(5);
    private static final int BATCH = 2_000;
    private static final long WRITE_EVERY_MILLIS = 250;
    /** Thirteen months: a month's spend stays comparable with the same month a year before. */
    public static final Duration RETENTION = Duration.ofDays(400);

    private static final Duration PRUNE_EVERY = Duration.ofHours(1);

    /**
     * One request's row.
     *
     * @param projectId the project the request is charged to: its inference key's, its router's or deployment's, or the
     *     one the caller named; empty for a cloud model called with none of these
     * @param keyId the inference key that made it; empty for an admin's or member's token
     * @param costPicoUsd what its usage cost (10⁻¹² USD); empty when its endpoint has no price
     */
    public record Entry(
            long atMillis,
            Optional<String> routerId,
            String endpoint,
            String model,
            Operation operation,
            Outcome outcome,
            int status,
            int attempts,
            OptionalLong promptTokens,
            OptionalLong completionTokens,
            long latencyMicros,
            Optional<String> projectId,
            Optional<String> keyId,
            OptionalLong costPicoUsd) {}

    private final Database database;
    private final Clock clock;
    private final BlockingQueue<Entry> queue;
    private final Counter dropped;
    private final Counter waits;
    private final Thread writer;
    private volatile boolean writing;
    private volatile boolean closed;

    public UsageLog(Database database, Clock clock, MeterRegistry meters) {
        this(database, clock, meters, QUEUE);
    }

    /** A log whose queue holds {@code capacity} rows. */
    public UsageLog(Database database, Clock clock, MeterRegistry meters, int capacity) {
        this.database = requireNonNull(database, "database");
        this.clock = requireNonNull(clock, "clock");
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.dropped = Counter.builder("arbor.routing.usage.dropped")
                .description("Routed requests whose usage row was not stored: still queued when the server stopped")
                .register(meters);
        this.waits = Counter.builder("arbor.routing.usage.waits")
                .description("Routed requests that waited for room in the usage queue (the database behind)")
                .register(meters);
        this.writer = Thread.ofPlatform().daemon().name("arbor-routing-usage").unstarted(this::drain);
    }

    /** Starts writing queued rows (and pruning old ones); a database a newer release migrated is only read. */
    public void start() {
        if (!database.readOnly()) {
            writing = true;
            writer.start();
        }
    }

    /**
     * Queues a row; when the queue is full, waits until the writer has room (the request that ends slows to the
     * database's pace rather than lose its row). A log that writes nothing (not started, a read-only database, or
     * stopped) keeps nothing.
     */
    public void record(Entry entry) {
        if (!writing || closed) {
            dropped.increment();
            return;
        }
        if (queue.offer(entry)) {
            return;
        }
        waits.increment();
        try {
            while (!queue.offer(entry, WRITE_EVERY_MILLIS, TimeUnit.MILLISECONDS)) {
                if (closed) {
                    dropped.increment();
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            dropped.increment();
        }
    }

    private void drain() {
        var batch = new ArrayList<Entry>(BATCH);
        long prunedAt = 0;
        while (!closed || !queue.isEmpty()) {
            try {
                if (clock.millis() - prunedAt >= PRUNE_EVERY.toMillis()) {
                    prunedAt = clock.millis();
                    prune(prunedAt - RETENTION.toMillis());
                }
                Entry first = queue.poll(WRITE_EVERY_MILLIS, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                write(batch);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                batch.clear();
            }
        }
    }

    /** Writes a batch, again and again after a growing pause while it fails, until it is stored or the log stops. */
    private void write(List<Entry> batch) throws InterruptedException {
        long pause = WRITE_EVERY_MILLIS;
        while (!tryWrite(batch)) {
            if (closed) {
                dropped.increment(batch.size());
                LOG.warn("stopped with the usage of {} routed requests not stored", batch.size());
                return;
            }
            Thread.sleep(pause);
            pause = Math.min(pause * 2, MAX_RETRY_PAUSE.toMillis());
        }
    }

    private boolean tryWrite(List<Entry> batch) {
        try {
            database.write(handle -> {
                var insert = handle.prepareBatch("INSERT INTO routing_usage (at, router_id, endpoint, model, "
                        + "operation, outcome, status, attempts, prompt_tokens, completion_tokens, latency_micros, "
                        + "project_id, key_id, cost_picousd) "
                        + "VALUES (:at, :router, :endpoint, :model, :operation, :outcome, :status, :attempts, "
                        + ":prompt, :completion, :latency, :project, :key, :cost)");
                for (Entry entry : batch) {
                    insert.bind("at", entry.atMillis())
                            .bind("router", entry.routerId().orElse(null))
                            .bind("endpoint", entry.endpoint())
                            .bind("model", entry.model())
                            .bind("operation", entry.operation().path())
                            .bind("outcome", entry.outcome().wire())
                            .bind("status", entry.status())
                            .bind("attempts", entry.attempts())
                            .bind("prompt", boxed(entry.promptTokens()))
                            .bind("completion", boxed(entry.completionTokens()))
                            .bind("latency", entry.latencyMicros())
                            .bind("project", entry.projectId().orElse(null))
                            .bind("key", entry.keyId().orElse(null))
                            .bind("cost", boxed(entry.costPicoUsd()))
                            .add();
                }
                return insert.execute();
            });
            return true;
        } catch (RuntimeException e) {
            LOG.warn("could not store the usage of {} routed requests, trying again: {}", batch.size(), e.getMessage());
            return false;
        }
    }

    /** Removes the rows of requests before {@code before}, a batch at a time so that no transaction grows large. */
    public int prune(long before) {
        int removed = 0;
        try {
            int batch;
            do {
                batch = database.write(handle -> handle.createUpdate(
                                "DELETE FROM routing_usage WHERE id IN (SELECT id FROM routing_usage WHERE at < :before "
                                        + "LIMIT 10000)")
                        .bind("before", before)
                        .execute());
                removed += batch;
            } while (batch == 10_000 && !closed);
        } catch (RuntimeException e) {
            LOG.warn("could not remove old usage rows: {}", e.getMessage());
        }
        return removed;
    }

    private static @Nullable Long boxed(OptionalLong value) {
        return value.isPresent() ? value.getAsLong() : null;
    }

    /** A router's requests since {@code since}, as stored (the rows of the last moment may still be queued). */
    public RouterUsage summary(String routerId, Instant since) {
        record Row(String endpoint, String outcome, long requests, long prompt, long completion, long latency) {}
        List<Row> rows = database.read(handle -> handle.createQuery("""
                        SELECT endpoint, outcome, count(*) AS requests,
                               coalesce(sum(prompt_tokens), 0) AS prompt,
                               coalesce(sum(completion_tokens), 0) AS completion,
                               coalesce(sum(latency_micros), 0) AS latency
                          FROM routing_usage
                         WHERE router_id = :router AND at >= :since
                         GROUP BY endpoint, outcome
                         ORDER BY endpoint, outcome""")
                .bind("router", routerId)
                .bind("since", since.toEpochMilli())
                .map((rs, ctx) -> new Row(
                        rs.getString("endpoint"),
                        rs.getString("outcome"),
                        rs.getLong("requests"),
                        rs.getLong("prompt"),
                        rs.getLong("completion"),
                        rs.getLong("latency")))
                .list());
        var outcomes = new HashMap<String, Long>();
        var byEndpoint = new LinkedHashMap<String, List<Row>>();
        for (Row row : rows) {
            outcomes.merge(row.outcome(), row.requests(), Long::sum);
            byEndpoint.computeIfAbsent(row.endpoint(), e -> new ArrayList<>()).add(row);
        }
        var endpoints = new ArrayList<RouterUsage.EndpointUsage>();
        byEndpoint.forEach((endpoint, its) -> {
            long requests = its.stream().mapToLong(Row::requests).sum();
            endpoints.add(new RouterUsage.EndpointUsage(
                    endpoint,
                    requests,
                    its.stream()
                            .filter(r -> r.outcome().equals(Outcome.OK.wire()))
                            .mapToLong(Row::requests)
                            .sum(),
                    its.stream().mapToLong(Row::prompt).sum(),
                    its.stream().mapToLong(Row::completion).sum(),
                    its.stream().mapToLong(Row::latency).sum() / 1000.0 / requests));
        });
        return new RouterUsage(
                routerId,
                since.getEpochSecond(),
                rows.stream().mapToLong(Row::requests).sum(),
                outcomes,
                rows.stream().mapToLong(Row::prompt).sum(),
                rows.stream().mapToLong(Row::completion).sum(),
                endpoints);
    }

    /** Writes what is queued, then stops. */
    @Override
    public void close() {
        closed = true;
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
