package dev.arbor.studio.decisions;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Writes decisions to history in shared transactions. Every caller still returns only once its own decision is
 * committed, but while one caller writes, those arriving meanwhile queue up and the next writer commits them all
 * at once: one commit for many decisions when many arrive together, and no hand-off to another thread when they
 * arrive one by one. A batch that fails is written again one by one, so that one bad decision fails alone.
 */
final class GroupCommit {
    private static final int MAX_BATCH = 128;
    /**
     * Decisions arriving this close together come from callers at work at once: their writer then waits this long
     * for company. A lone caller's decisions are a whole round trip apart and never wait.
     */
    private static final long BUSY_NANOS = 1_000_000;
    private static final long LINGER_NANOS = 500_000;

    private record Pending(DecisionStore.Prepared decision, CompletableFuture<Void> done) {}

    private final DecisionStore store;
    private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean writing = new AtomicBoolean();
    private final AtomicLong lastArrivalNanos = new AtomicLong(System.nanoTime() - BUSY_NANOS);

    GroupCommit(DecisionStore store) {
        this.store = requireNonNull(store, "store");
    }

    /** Returns once the decision is committed; throws what its write threw. */
    void write(StoredDecision decision) {
        var pending = new Pending(DecisionStore.prepare(decision), new CompletableFuture<>());
        long now = System.nanoTime();
        boolean closeTogether = now - lastArrivalNanos.getAndSet(now) < BUSY_NANOS;
        queue.add(pending);
        while (!pending.done().isDone()) {
            if (writing.compareAndSet(false, true)) {
                if (closeTogether) {
                    // decisions are arriving close together: a moment's wait lets the next ones share this commit
                    LockSupport.parkNanos(LINGER_NANOS);
                }
                // after letting go, look once more: a decision queued while this one wrote would otherwise wait
                // for its own caller's next try
                do {
                    try {
                        drain();
                    } finally {
                        writing.set(false);
                    }
                } while (!queue.isEmpty() && writing.compareAndSet(false, true));
            } else {
                try {
                    pending.done().get(50, TimeUnit.MILLISECONDS);
                } catch (TimeoutException | ExecutionException e) {
                    // not written yet (the writer may have drained before it was queued), or failed: look again
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while saving a decision", e);
                }
            }
        }
        try {
            pending.done().join();
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause : e;
        }
    }

    private void drain() {
        List<Pending> batch;
        while (!(batch = next()).isEmpty()) {
            try {
                store.insertAll(batch.stream().map(Pending::decision).toList());
                batch.forEach(p -> p.done().complete(null));
            } catch (RuntimeException e) {
                if (batch.size() == 1) {
                    batch.getFirst().done().completeExceptionally(e);
                    continue;
                }
                for (Pending one : batch) {
                    try {
                        store.insertAll(List.of(one.decision()));
                        one.done().complete(null);
                    } catch (RuntimeException alone) {
                        one.done().completeExceptionally(alone);
                    }
                }
            }
        }
    }

    private List<Pending> next() {
        var batch = new ArrayList<Pending>();
        Pending item;
        while (batch.size() < MAX_BATCH && (item = queue.poll()) != null) {
            batch.add(item);
        }
        return batch;
    }
}
