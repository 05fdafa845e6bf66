package dev.arbor.platform.http.server;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.jspecify.annotations.Nullable;

/**
 * Limits what one client can hold of the server's connections. Jetty restarts a connection's idle timeout at every
 * byte, so a client sending its headers a line at a time keeps a connection forever, and enough of them use up the
 * server's file descriptors: each request's headers must arrive within {@code headerTimeout} of the connection's
 * opening or of the previous response, or the connection is closed. No address may hold more than
 * {@code maxPerAddress} connections at once; one more is closed as soon as it is accepted.
 *
 * <p>And the server holds at most {@code maxConnections} at once, below its descriptor limit, however many addresses
 * they come from. At the cap a new connection closes the oldest one that is waiting for a request's headers (slow
 * headers, or idle between requests) rather than being refused itself: a flood of slow clients then only pushes out
 * its own oldest members, and a health probe or a real client, who sends its headers at once, is served. Only when
 * every connection is inside a request is the new one closed.
 */
final class ConnectionGuard extends Handler.Wrapper implements Connection.Listener {
    private final Duration headerTimeout;
    private final int maxPerAddress;
    private final int maxConnections;
    /** The connections waiting for a request's headers, each with what closes it when they come too late. */
    private final Map<Connection, Deadline> awaitingHeaders = new ConcurrentHashMap<>();
    /** The same waits, oldest first: the first is what a connection over the cap closes. */
    private final ConcurrentSkipListMap<Long, Deadline> oldestWaitFirst = new ConcurrentSkipListMap<>();

    private final AtomicLong waits = new AtomicLong();
    private final AtomicInteger open = new AtomicInteger();
    /** The peer of each open connection, kept because a closed socket no longer tells it. */
    private final Map<Connection, InetAddress> peers = new ConcurrentHashMap<>();

    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();

    ConnectionGuard(Duration headerTimeout, int maxPerAddress, int maxConnections) {
        this.headerTimeout = requireNonNull(headerTimeout, "headerTimeout");
        this.maxPerAddress = maxPerAddress;
        this.maxConnections = maxConnections;
    }

    /** Listens to the connections of every connector, which the server has when its handlers start. */
    @Override
    protected void doStart() throws Exception {
        for (Connector connector : getServer().getConnectors()) {
            connector.addEventListener(this);
        }
        super.doStart();
    }

    @Override
    protected void doStop() throws Exception {
        super.doStop();
        for (Connector connector : getServer().getConnectors()) {
            connector.removeEventListener(this);
        }
    }

    /** A request's headers have arrived; the wait for the next one's starts when its response is done. */
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Connection connection = request.getConnectionMetaData().getConnection();
        headersArrived(connection);
        boolean handled = false;
        try {
            handled = super.handle(request, response, new Callback.Nested(callback) {
                // the next wait starts before this request completes, so that the next request never comes first
                @Override
                public void succeeded() {
                    awaitHeaders(connection);
                    super.succeeded();
                }

                @Override
                public void failed(Throwable failure) {
                    awaitHeaders(connection);
                    super.failed(failure);
                }
            });
            return handled;
        } finally {
            if (!handled) {
                awaitHeaders(connection);
            }
        }
    }

    @Override
    public void onOpened(Connection connection) {
        if (open.incrementAndGet() > maxConnections && !closeOldestWaiting()) {
            connection.getEndPoint().close();
            return;
        }
        if (connection.getEndPoint().getRemoteSocketAddress() instanceof InetSocketAddress remote) {
            InetAddress address = remote.getAddress();
            peers.put(connection, address);
            if (perAddress.merge(address, 1, Integer::sum) > maxPerAddress) {
                connection.getEndPoint().close();
                return;
            }
        }
        awaitHeaders(connection);
    }

    @Override
    public void onClosed(Connection connection) {
        open.decrementAndGet();
        headersArrived(connection);
        InetAddress address = peers.remove(connection);
        if (address != null) {
            perAddress.computeIfPresent(address, (a, count) -> count > 1 ? count - 1 : null);
        }
    }

    private void awaitHeaders(Connection connection) {
        if (!connection.getEndPoint().isOpen()) {
            return;
        }
        var deadline = new Deadline(connection, waits.incrementAndGet());
        Deadline earlier = awaitingHeaders.put(connection, deadline);
        if (earlier != null) {
            earlier.forget();
        }
        oldestWaitFirst.put(deadline.order, deadline);
        deadline.task = getServer().getScheduler().schedule(deadline, headerTimeout);
    }

    private void headersArrived(Connection connection) {
        Deadline deadline = awaitingHeaders.remove(connection);
        if (deadline != null) {
            deadline.forget();
        }
    }

    /** Closes the connection that has waited longest for a request's headers; false when none is waiting. */
    private boolean closeOldestWaiting() {
        for (var oldest = oldestWaitFirst.pollFirstEntry(); oldest != null; oldest = oldestWaitFirst.pollFirstEntry()) {
            if (oldest.getValue().closeIfWaiting()) {
                return true;
            }
        }
        return false;
    }

    /** Closes its connection unless the headers it waits for arrived (or a later wait replaced it) first. */
    private final class Deadline implements Runnable {
        private final Connection connection;
        private final long order;
        private volatile Scheduler.@Nullable Task task;

        private Deadline(Connection connection, long order) {
            this.connection = connection;
            this.order = order;
        }

        @Override
        public void run() {
            closeIfWaiting();
        }

        /** Closes the connection if it still waits for these headers; whether it did. */
        private boolean closeIfWaiting() {
            if (!awaitingHeaders.remove(connection, this)) {
                return false;
            }
            forget();
            connection.getEndPoint().close();
            return true;
        }

        private void forget() {
            oldestWaitFirst.remove(order, this);
            Scheduler.Task scheduled = task;
            if (scheduled != null) {
                scheduled.cancel();
            }
        }
    }
}
