package dev.arbor.models.workers;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server's end of one worker's socket: connections kept between calls (the most recently used first, so a
 * quiet server keeps one warm), each carrying one call at a time, as many as calls run at once.
 */
public final class WorkerLink implements AutoCloseable {
    /** More than the cores, for engines that wait on others (remote); within the worker's accept queue. */
    static final int MAX_CONNECTIONS = 64;

    private final Path socket;
    private final UnixDomainSocketAddress address;
    private final Deque<SocketChannel> idle = new ConcurrentLinkedDeque<>();
    private final Set<Call> calls = ConcurrentHashMap.newKeySet();
    /** Calls beyond this many wait here for a connection rather than crowd the worker's queue of new ones. */
    private final Semaphore connections = new Semaphore(MAX_CONNECTIONS);

    private volatile boolean closed;

    public WorkerLink(Path socket) {
        this.socket = requireNonNull(socket, "socket");
        this.address = UnixDomainSocketAddress.of(socket);
    }

    /**
     * Sends one request and waits for its reply; {@link SocketTimeoutException} when none came in time (see
     * {@link #closeLate}), another {@link IOException} when the worker went away.
     */
    byte[] call(byte[] request, Duration timeout) throws IOException {
        return call(request, timeout, frame -> false);
    }

    /**
     * Sends one request whose reply may come as several frames (a generation streams its text): each frame but the
     * last goes to {@code interim}, which says whether more follow; returns the last. The timeout covers them all.
     */
    byte[] call(byte[] request, Duration timeout, Frames interim) throws IOException {
        return call(request, timeout, timeout, interim);
    }

    /**
     * {@link #call(byte[], Duration, Frames)} where, besides the whole reply within {@code timeout}, its first frame
     * and each next must come within {@code eachFrame}: a caller that gives up sooner than the model's own timeout.
     */
    byte[] call(byte[] request, Duration timeout, Duration eachFrame, Frames interim) throws IOException {
        long now = System.nanoTime();
        long last = now + timeout.toNanos();
        long step = eachFrame.toNanos();
        long firstDeadline = Math.min(last, now + step);
        try {
            if (!connections.tryAcquire(firstDeadline - now, TimeUnit.NANOSECONDS)) {
                throw new SocketTimeoutException("no connection to the worker came free in "
                        + Duration.ofNanos(firstDeadline - now).toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for a connection to the worker");
        }
        try {
            return callOn(request, new Deadline(last, step, firstDeadline), interim);
        } finally {
            connections.release();
        }
    }

    /** When a call is late: its whole reply by {@code last}, each frame within {@code step} of the one before. */
    private record Deadline(long last, long step, long first) {
        long next(long nowNanos) {
            return Math.min(last, nowNanos + step);
        }
    }

    /** Reads the frames of one reply. */
    @FunctionalInterface
    interface Frames {
        /** Handles a frame of the reply; returns whether more frames of it follow. */
        boolean more(byte[] frame);
    }

    private byte[] callOn(byte[] request, Deadline deadline, Frames interim) throws IOException {
        SocketChannel channel = idle.pollFirst();
        if (channel == null) {
            channel = SocketChannel.open(address);
        }
        var call = new Call(channel, deadline.first());
        calls.add(call);
        try {
            WorkerWire.write(channel, request);
            byte[] reply = WorkerWire.read(channel);
            while (interim.more(reply)) {
                call.deadlineNanos = deadline.next(System.nanoTime());
                reply = WorkerWire.read(channel);
            }
            calls.remove(call);
            if (call.endedInTime()) {
                release(channel);
            }
            return reply;
        } catch (IOException e) {
            calls.remove(call);
            closeQuietly(channel);
            if (!call.endedInTime()) {
                var timedOut = new SocketTimeoutException("no answer in time");
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
        } catch (RuntimeException e) { // a reader of the frames gave up: the rest of the reply is never read
            calls.remove(call);
            closeQuietly(channel);
            throw e;
        }
    }

    /**
     * Ends the calls whose time is up by closing their connections (their readers then fail and report a timeout).
     * The runtime runs this a few times a second for every link, rather than arming a timer for each call: a timer
     * wakes a thread on every call, which costs more on two shared cores than the tenth of a second of precision
     * that a timeout measured in seconds gives up.
     */
    public void closeLate(long nowNanos) {
        for (Call call : calls) {
            if (nowNanos - call.deadlineNanos > 0 && call.markLate()) {
                closeQuietly(call.channel);
            }
        }
    }

    /** A call under way; it ends either in time or late, once, so a sweep never closes a connection in reuse. */
    private static final class Call {
        final SocketChannel channel;
        /** Moves on with each frame of a reply whose frames each have their time. */
        volatile long deadlineNanos;

        private final AtomicReference<Boolean> inTime = new AtomicReference<>();

        Call(SocketChannel channel, long deadlineNanos) {
            this.channel = channel;
            this.deadlineNanos = deadlineNanos;
        }

        /** Marks the call ended in time unless it was found late first; returns whether it was in time. */
        boolean endedInTime() {
            return inTime.compareAndSet(null, true) || Boolean.TRUE.equals(inTime.get());
        }

        /** Marks the call late unless it ended first; returns whether it is late. */
        boolean markLate() {
            return inTime.compareAndSet(null, false) || Boolean.FALSE.equals(inTime.get());
        }
    }

    private void release(SocketChannel channel) {
        idle.offerFirst(channel);
        if (closed) {
            closeIdle();
        }
    }

    /** Closes the kept connections and removes the socket's folder, which the worker made for this link alone. */
    @Override
    public void close() {
        closed = true;
        closeIdle();
        try {
            Files.deleteIfExists(socket);
            Files.deleteIfExists(socket.getParent());
        } catch (IOException e) {
            // the worker removes them itself as it stops; what is left is an empty folder in the temp directory
        }
    }

    private void closeIdle() {
        for (SocketChannel channel; (channel = idle.pollFirst()) != null; ) {
            closeQuietly(channel);
        }
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing is all we wanted
        }
    }
}
