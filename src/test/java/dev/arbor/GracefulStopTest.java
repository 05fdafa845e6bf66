package dev.arbor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.arbor.testing.HttpReply;
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

        CompletableFuture<Void> stopping = CompletableFuture.runAsync(server::close);
        Thread.sleep(300);
        assertThat(stopping).isNotDone();
        probe.release.countDown();

        assertThat(inFlight.get(10, TimeUnit.SECONDS).status()).isEqualTo(200);
        stopping.get(10, TimeUnit.SECONDS);
    }
}
