package dev.arbor.platform.outbound;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import javax.net.SocketFactory;

/**
 * Sockets that connect to the one address the {@link OutboundPolicy} checked, whatever endpoint a library asks them
 * to connect to: a library that resolves the host name again (Jakarta Mail does) cannot be led to another address by
 * a DNS answer that changed in between (DNS rebinding). TLS that the library layers on such a socket still sends the
 * host name as SNI and checks the certificate against it.
 */
public final class PinnedSocketFactory extends SocketFactory {
    private final InetSocketAddress destination;

    /** Sockets to {@code destination}, a checked address and the port it was checked for. */
    public PinnedSocketFactory(InetSocketAddress destination) {
        this.destination = requireNonNull(destination, "destination");
        if (destination.isUnresolved()) {
            throw new IllegalArgumentException("a pinned destination is an address, not a name: " + destination);
        }
    }

    @Override
    public Socket createSocket() {
        return new PinnedSocket(destination);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket socket = createSocket();
        socket.connect(InetSocketAddress.createUnresolved(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localAddress, int localPort) throws IOException {
        Socket socket = createSocket();
        socket.bind(new InetSocketAddress(localAddress, localPort));
        socket.connect(InetSocketAddress.createUnresolved(host, port));
        return socket;
    }

    @Override
    public Socket createSocket(InetAddress address, int port) throws IOException {
        return createSocket(address.getHostAddress(), port);
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return createSocket(address.getHostAddress(), port, localAddress, localPort);
    }

    /** A socket whose every connect goes to the pinned destination. */
    private static final class PinnedSocket extends Socket {
        private final InetSocketAddress destination;

        PinnedSocket(InetSocketAddress destination) {
            this.destination = destination;
        }

        @Override
        public void connect(SocketAddress endpoint, int timeout) throws IOException {
            if (!(endpoint instanceof InetSocketAddress wanted) || wanted.getPort() != destination.getPort()) {
                // another port was never checked: refuse it rather than reach it on the checked address
                throw new IOException("only " + destination + " was checked by the outbound policy, not " + endpoint);
            }
            super.connect(destination, timeout);
        }
    }
}
