package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.testing.HttpReply;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Stopping lets the requests in flight finish before the server goes away. */
class GracefulStopTest {

    @Test
    void requestsInFlightFinishDuringStop() throws Exception {
        var probe = new ProbeRoutes();
        var server = ArborServer.start(Map.of(), probe);
        CompletableFuture<HttpReply> inFlight =
                CompletableFuture.supplyAsync(() -> server.http().post("/probe/slow", "{}"));
        assertThat(probe.entered.await(10, TimeUnit.SECONDS)).isTrue();

        int port = server.application().port();
        CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::close);
        await("the stop begun: new connections refused")
                .atMost(Duration.ofSeconds(10))
                .until(() -> refusesConnections(port));
        assertThat(stopping).as("the stop waits for the request in flight").isNotDone();
        probe.release.countDown();

        assertThat(inFlight.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        stopping.get(10, TimeUnit.SECONDS);
    }

    private static boolean refusesConnections(int port) {
        try (var socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
