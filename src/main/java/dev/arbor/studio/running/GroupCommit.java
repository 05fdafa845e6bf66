package dev.arbor.studio.running;

import static java.util.Objects.requireNonNull;

import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.history.StoredDecision;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Writes decisions to history in shared transactions. Every caller still returns only once its own decision is
 * committed, but while one caller writes, those arriving meanwhile queue up and the next writer commits them all
 * at once: one commit for many decisions when many arrive together, and no hand-off to another thread when they
 * arrive one by one. A batch that fails is written again one by one, so that one bad decision fails alone.
 *
 * <p>When many decisions are in flight, a writer waits for company: for a quarter of them to be queued, at most
 * {@link #MAX_WAIT_NANOS}. In a steady stream a quarter of those in flight arrive in a quarter of the time each one
 * takes, so a decision waits at most about that much longer, while a commit shared by many costs a fraction of a
 * commit each (SQLite writes every page a commit touched, and decisions written together share most of them);
 * with fewer than eight in flight a writer never waits.
 */
final class GroupCommit {
    private static final int MAX_BATCH = 128;
    private static final int COMPANY_SHARE = 4;
    private static final long MAX_WAIT_NANOS = 5_000_000;

    /** A decision in flight that history will keep: closed once it is written, or given up. */
    interface InFlight extends AutoCloseable {
        @Override
        void close();
    }

    /** A decision in flight that history will not keep. */
    static final InFlight NOT_KEPT = () -> {};

    private record Pending(HistoryStore.Prepared decision, CompletableFuture<Void> done) {}

    private final HistoryStore store;
    private final String serverInstance;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicBoolean writing = new AtomicBoolean();
    /** The writer waiting for company, woken by each decision queued. */
    private volatile @Nullable Thread waitingWriter;

    /** @param serverInstance this server, which owns the decisions it writes unfinished until it finishes them */
    GroupCommit(HistoryStore store, String serverInstance) {
        this.store = requireNonNull(store, "store");
        this.serverInstance = requireNonNull(serverInstance, "serverInstance");
    }

    /** Counts a decision in flight whose record history will keep, until it is closed. */
    InFlight announce() {
        inFlight.incrementAndGet();
        return inFlight::decrementAndGet;
    }

    /** Returns once the decision is committed; throws what its write threw. */
    void write(StoredDecision decision) {
        var pending = new Pending(HistoryStore.prepare(decision), new CompletableFuture<>());
        queue.add(pending);
        queued.incrementAndGet();
        Thread writer = waitingWriter;
        if (writer != null) {
            LockSupport.unpark(writer);
        }
        // with no one writing, this caller writes; otherwise the one writing takes this decision too, since a writer
        // that lets go looks at the queue once more before leaving
        if (writing.compareAndSet(false, true)) {
            do {
                try {
                    awaitCompany();
                    writeBatch();
                } finally {
                    writing.set(false);
                }
            } while (!queue.isEmpty() && writing.compareAndSet(false, true));
        }
        try {
            pending.done().get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while saving a decision", e);
        }
    }

    private void awaitCompany() {
        int company = inFlight.get() / COMPANY_SHARE;
        if (queued.get() >= company) {
            return;
        }
        long deadline = System.nanoTime() + MAX_WAIT_NANOS;
        waitingWriter = Thread.currentThread();
        try {
            long left;
            while (queued.get() < company && (left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(this, left);
            }
        } finally {
            waitingWriter = null;
        }
    }

    private void writeBatch() {
        List<Pending> batch = next();
        if (batch.isEmpty()) {
            return;
        }
        try {
            store.insertAll(batch.stream().map(Pending::decision).toList(), serverInstance);
            batch.forEach(p -> p.done().complete(null));
        } catch (RuntimeException e) {
            if (batch.size() == 1) {
                batch.getFirst().done().completeExceptionally(e);
                return;
            }
            for (Pending one : batch) {
                try {
                    store.insertAll(List.of(one.decision()), serverInstance);
                    one.done().complete(null);
                } catch (RuntimeException alone) {
                    one.done().completeExceptionally(alone);
                }
            }
        } catch (Error e) {
            // their callers wait without a time limit: none may be left waiting
            batch.forEach(p -> p.done().completeExceptionally(e));
            throw e;
        }
    }

    private List<Pending> next() {
        var batch = new ArrayList<Pending>();
        Pending item;
        while (batch.size() < MAX_BATCH && (item = queue.poll()) != null) {
            queued.decrementAndGet();
            batch.add(item);
        }
        return batch;
    }
}
