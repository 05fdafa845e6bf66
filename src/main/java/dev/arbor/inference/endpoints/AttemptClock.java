package dev.arbor.inference.endpoints;

import static java.util.Objects.requireNonNull;

import java.net.http.HttpTimeoutException;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The deadlines of one attempt, kept by a timer rather than by the thread that waits: when one passes, the attempt is
 * aborted (its wait or read fails at once) and {@link #expired()} says which: {@code connect} (no connection yet),
 * {@code first byte} (no first event of a stream, or not all of an answer that does not stream), {@code idle} (no
 * event of a stream for that long) or {@code total}.
 */
public final class AttemptClock implements AutoCloseable {
    private final ScheduledExecutorService timer;
    private final AttemptPolicy.Deadlines deadlines;
    private final AtomicReference<String> expired = new AtomicReference<>();
    private final long started = System.nanoTime();
    private volatile Consumer<Throwable> abort = cause -> {};
    private volatile BooleanSupplier connection = () -> false;
    private volatile long lastProgress = started;
    private volatile boolean connected;
    private volatile boolean firstByte;
    private volatile boolean closed;
    private volatile ScheduledFuture<?> idle;
    private final ScheduledFuture<?> total;
    private final ScheduledFuture<?> first;
    private final ScheduledFuture<?> connect;

    public AttemptClock(ScheduledExecutorService timer, AttemptPolicy.Deadlines deadlines) {
        this.timer = requireNonNull(timer, "timer");
        this.deadlines = requireNonNull(deadlines, "deadlines");
        this.connect = schedule(
                () -> {
                    if (!connected && !connection.getAsBoolean()) {
                        expire("connect");
                    }
                },
                deadlines.connect().toNanos());
        this.first = schedule(
                () -> {
                    if (!firstByte) {
                        expire("first byte");
                    }
                },
                deadlines.firstByte().toNanos());
        this.total = schedule(() -> expire("total"), deadlines.total().toNanos());
        this.idle = first;
    }

    /**
     * What aborts the attempt when a deadline passes, and whether it has its connection yet (set once the exchange is
     * under way).
     */
    public void watch(Consumer<Throwable> abort, BooleanSupplier connection) {
        this.connection = requireNonNull(connection, "connection");
        this.abort = requireNonNull(abort, "abort");
        if (expired.get() != null) {
            abort.accept(new HttpTimeoutException(expired.get()));
        }
    }

    /** Aborts the attempt now: a hedge's rival answered first. */
    public void cancel() {
        expire("hedge");
    }

    public void connected() {
        connected = true;
    }

    /** The first event came (or all of a whole answer): from here the idle deadline counts. */
    public void firstByte() {
        connected = true;
        firstByte = true;
        progress();
        armIdle(deadlines.idle().toNanos());
    }

    /** Bytes came. */
    public void progress() {
        lastProgress = System.nanoTime();
    }

    /** The deadline that passed, if one did. */
    public Optional<String> expired() {
        return Optional.ofNullable(expired.get());
    }

    /** The deadline that passed, said for a caller: "did not answer in time (first byte: 1 s)". */
    public String describe() {
        String which = expired.get();
        if (which == null) {
            return "did not answer in time";
        }
        var limit = switch (which) {
            case "connect" -> deadlines.connect();
            case "first byte" -> deadlines.firstByte();
            case "idle" -> deadlines.idle();
            default -> deadlines.total();
        };
        String what = switch (which) {
            case "connect" -> "could not be connected to";
            case "first byte" -> "did not start answering";
            case "idle" -> "sent nothing more";
            default -> "did not finish answering";
        };
        return what + " within its " + which + " timeout (" + seconds(limit.toMillis()) + ")";
    }

    private static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis + " ms";
    }

    private void armIdle(long nanos) {
        if (closed) {
            return;
        }
        idle = schedule(
                () -> {
                    long quiet = System.nanoTime() - lastProgress;
                    long limit = deadlines.idle().toNanos();
                    if (quiet >= limit) {
                        expire("idle");
                    } else {
                        armIdle(limit - quiet);
                    }
                },
                nanos);
    }

    private ScheduledFuture<?> schedule(Runnable task, long nanos) {
        return timer.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    private void expire(String which) {
        if (!closed && expired.compareAndSet(null, which)) {
            abort.accept(new HttpTimeoutException(which + " timeout"));
        }
    }

    /** The attempt ended: no deadline applies any more. */
    @Override
    public void close() {
        closed = true;
        connect.cancel(false);
        first.cancel(false);
        total.cancel(false);
        idle.cancel(false);
    }
}
