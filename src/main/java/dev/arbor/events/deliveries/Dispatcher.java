package dev.arbor.events.deliveries;

import static java.util.Objects.requireNonNull;

import dev.arbor.events.EventSubscribers;
import dev.arbor.events.deliveries.DeliveryStore.Due;
import dev.arbor.platform.timers.Repeating;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.platform.tracing.Tracing;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands accepted deliveries to the subscribers after their rows are committed. The row is the durable job: a round
 * stays waiting in it until dispatched, so the rounds this process was handed (its queue) go at once, and a sweep
 * takes the rounds waiting longer than {@link #SWEEP_AFTER}: those a stopped server, a full queue or a failed dispatch
 * left, and those of another server on the same PostgreSQL that stopped. Dispatching a round twice is harmless (a
 * round fires each trigger at most once, {@link EventSubscribers#dispatch}), so the sweep needs no lock.
 */
final class Dispatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
    /** How long a round waits before the sweep takes it from whichever process received it. */
    static final Duration SWEEP_AFTER = Duration.ofSeconds(30);
    /** How long the delivery log keeps a delivery (a refused one as long as the settings say). */
    static final Duration RETENTION = Duration.ofDays(30);

    private static final int QUEUE = 10_000;
    private static final int BATCH = 256;

    private final DeliveryStore store;
    private final EventSubscribers subscribers;
    private final Duration refusedRetention;
    private final Clock clock;
    private final BlockingQueue<Due> queue = new ArrayBlockingQueue<>(QUEUE);
    private final Thread worker;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-event-dispatch-sweep").factory());
    private volatile boolean closed;
    private final Tracing tracing;

    Dispatcher(
            DeliveryStore store,
            EventSubscribers subscribers,
            Duration refusedRetention,
            Clock clock,
            Tracing tracing) {
        this.tracing = requireNonNull(tracing, "tracing");
        this.store = requireNonNull(store, "store");
        this.subscribers = requireNonNull(subscribers, "subscribers");
        this.refusedRetention = requireNonNull(refusedRetention, "refusedRetention");
        this.clock = requireNonNull(clock, "clock");
        this.worker = Thread.ofPlatform().daemon().name("arbor-event-dispatch").unstarted(this::work);
    }

    /** Starts dispatching, with a sweep of every round a stopped server left waiting. */
    void start() {
        worker.start();
        timer.execute(() -> sweep(Duration.ZERO));
        Repeating.every(timer, SWEEP_AFTER, SWEEP_AFTER, "the deliveries' sweep", () -> sweep(SWEEP_AFTER));
        Repeating.every(timer, Duration.ZERO, Duration.ofHours(1), "the deliveries' prune", this::prune);
    }

    /** A committed round to dispatch soon; when the queue is full the sweep takes it later. */
    void offer(Due due) {
        queue.offer(due);
    }

    /** Dispatches the rounds waiting longer than {@code age} now, as the sweep would. */
    void sweep(Duration age) {
        try {
            int dispatched;
            do {
                dispatched = dispatch(store.waiting(clock.instant().minus(age), BATCH));
            } while (dispatched == BATCH && !closed);
        } catch (RuntimeException e) {
            LOG.error("the sweep of event deliveries waiting for dispatch failed", e);
        }
    }

    private void prune() {
        try {
            Instant now = clock.instant();
            int removed = store.prune(now.minus(RETENTION), now.minus(refusedRetention));
            if (removed > 0) {
                LOG.info(
                        "removed {} event deliveries older than {} days (refused ones older than {} days)",
                        removed,
                        RETENTION.toDays(),
                        refusedRetention.toDays());
            }
        } catch (RuntimeException e) {
            LOG.error("pruning old event deliveries failed", e);
        }
    }

    private void work() {
        var batch = new ArrayList<Due>(BATCH);
        while (!closed) {
            try {
                Due first = queue.poll(200, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, BATCH - 1);
                dispatch(batch);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.error("dispatching event deliveries failed; the sweep tries them again", e);
            } finally {
                batch.clear();
            }
        }
    }

    /** @return how many were dispatched */
    private int dispatch(List<Due> rounds) {
        var done = new ArrayList<Due>(rounds.size());
        for (Due due : rounds) {
            try (Traced span = DeliverySpans.dispatching(tracing, due)) {
                try {
                    subscribers.dispatch(due.delivery().event().orElseThrow(), due.round(), due.audience());
                } catch (RuntimeException e) {
                    span.failed("dispatch_failed", e.getClass().getSimpleName());
                    throw e;
                }
                done.add(due);
            } catch (RuntimeException e) {
                LOG.warn(
                        "dispatching delivery {} (round {}) failed; it waits for the sweep",
                        due.delivery().id(),
                        due.round(),
                        e);
                store.failed(due, e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        store.dispatched(done, clock.instant());
        return done.size();
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        worker.interrupt();
        try {
            worker.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
