package dev.arbor.models;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
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

/**
 * The server's end of one worker's socket: connections kept between calls (the most recently used first, so a
 * quiet server keeps one warm), each carrying one call at a time, as many as calls run at once.
 */
final class WorkerLink implements AutoCloseable {
    private final Path socket;
    private final UnixDomainSocketAddress address;
    private final Deque<SocketChannel> idle = new ConcurrentLinkedDeque<>();
    private final Set<Call> calls = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    WorkerLink(Path socket) {
        this.socket = requireNonNull(socket, "socket");
        this.address = UnixDomainSocketAddress.of(socket);
    }

    /**
     * Sends one request and waits for its reply; {@link SocketTimeoutException} when none came in time (see
     * {@link #closeLate}), another {@link IOException} when the worker went away.
     */
    byte[] call(byte[] request, Duration timeout) throws IOException {
        SocketChannel channel = idle.pollFirst();
        if (channel == null) {
            channel = SocketChannel.open(address);
        }
        var call = new Call(channel, System.nanoTime() + timeout.toNanos());
        calls.add(call);
        try {
            WorkerWire.write(channel, request);
            byte[] reply = WorkerWire.read(channel);
            calls.remove(call);
            if (!call.late) {
                release(channel);
            }
            return reply;
        } catch (IOException e) {
            calls.remove(call);
            closeQuietly(channel);
            if (call.late) {
                var timedOut = new SocketTimeoutException("no answer in " + timeout.toMillis() + " ms");
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
        }
    }

    /**
     * Ends the calls whose time is up by closing their connections (their readers then fail and report a timeout).
     * The runtime runs this a few times a second for every link, rather than arming a timer for each call: a timer
     * wakes a thread on every call, which costs more on two shared cores than the few milliseconds of precision
     * that a timeout measured in seconds gives up.
     */
    void closeLate(long nowNanos) {
        for (Call call : calls) {
            if (nowNanos - call.deadlineNanos > 0) {
                call.late = true;
                closeQuietly(call.channel);
            }
        }
    }

    private static final class Call {
        final SocketChannel channel;
        final long deadlineNanos;
        volatile boolean late;

        Call(SocketChannel channel, long deadlineNanos) {
            this.channel = channel;
            this.deadlineNanos = deadlineNanos;
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
