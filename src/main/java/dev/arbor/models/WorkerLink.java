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
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The server's end of one worker's socket: connections kept between calls (the most recently used first, so a
 * quiet server keeps one warm), each carrying one call at a time, as many as calls run at once.
 */
final class WorkerLink implements AutoCloseable {
    private final Path socket;
    private final UnixDomainSocketAddress address;
    private final ScheduledExecutorService deadlines;
    private final Deque<SocketChannel> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    /** @param deadlines closes a connection whose answer is late, which ends the wait with a timeout */
    WorkerLink(Path socket, ScheduledExecutorService deadlines) {
        this.socket = requireNonNull(socket, "socket");
        this.address = UnixDomainSocketAddress.of(socket);
        this.deadlines = requireNonNull(deadlines, "deadlines");
    }

    /**
     * Sends one request and waits for its reply; {@link SocketTimeoutException} when none came in time, another
     * {@link IOException} when the worker went away.
     */
    byte[] call(byte[] request, Duration timeout) throws IOException {
        SocketChannel channel = idle.pollFirst();
        if (channel == null) {
            channel = SocketChannel.open(address);
        }
        SocketChannel used = channel;
        var late = new AtomicBoolean();
        ScheduledFuture<?> deadline = deadlines.schedule(() -> {
            late.set(true);
            closeQuietly(used);
        }, timeout.toMillis(), TimeUnit.MILLISECONDS);
        try {
            WorkerWire.write(channel, request);
            byte[] reply = WorkerWire.read(channel);
            if (deadline.cancel(false)) {
                release(channel);
            }
            return reply;
        } catch (IOException e) {
            deadline.cancel(false);
            closeQuietly(channel);
            if (late.get()) {
                var timedOut = new SocketTimeoutException("no answer in " + timeout.toMillis() + " ms");
                timedOut.initCause(e);
                throw timedOut;
            }
            throw e;
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
