package dev.arbor.platform.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A library that resolves a host name again gets a socket to the address the policy checked: the name it connects
 * to is not looked up a second time, so a DNS answer that changed in between (rebinding) cannot redirect it.
 */
class PinnedSocketFactoryTest {
    private ServerSocket listener;
    private int port;

    @BeforeEach
    void listen() throws IOException {
        listener = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        port = listener.getLocalPort();
    }

    @AfterEach
    void close() throws IOException {
        listener.close();
    }

    @Test
    void theSocketConnectsToTheAddressThePolicyChecked() throws IOException {
        var policy = new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1:" + port)));
        List<InetAddress> checked = policy.checkHost("127.0.0.1", port);
        var factory = new PinnedSocketFactory(new InetSocketAddress(checked.getFirst(), port));

        // a name no resolver answers: had the socket looked it up, it could not have connected
        try (Socket socket = factory.createSocket();
                Socket accepted = connectAndAccept(socket, "rebound.invalid")) {
            assertThat(socket.getInetAddress()).isEqualTo(checked.getFirst());
            assertThat(accepted.getLocalPort()).isEqualTo(port);
        }
    }

    @Test
    void aNameTheOperatingSystemResolvesIsConnectedByTheCheckedAddress() throws IOException {
        var policy = new OutboundPolicy(List.of(AllowedDestination.parse("127.0.0.1:" + port)));
        InetAddress checked = policy.checkHost("127.0.0.1", port).getFirst();
        var factory = new PinnedSocketFactory(new InetSocketAddress(checked, port));

        // what Jakarta Mail does: a socket from the factory, then connect to the name resolved again
        try (Socket socket = factory.createSocket();
                Socket accepted = connectAndAccept(socket, "localhost")) {
            assertThat(socket.getInetAddress()).isEqualTo(checked);
            assertThat(accepted.getInetAddress()).isEqualTo(checked);
        }
    }

    @Test
    void aPortThatWasNotCheckedIsRefused() throws IOException {
        var factory = new PinnedSocketFactory(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
        try (Socket socket = factory.createSocket()) {
            assertThatThrownBy(() -> socket.connect(InetSocketAddress.createUnresolved("localhost", port + 1)))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("was checked by the outbound policy");
            assertThat(socket.isConnected()).isFalse();
        }
    }

    private Socket connectAndAccept(Socket socket, String name) throws IOException {
        socket.connect(InetSocketAddress.createUnresolved(name, port), 5_000);
        return listener.accept();
    }
}
