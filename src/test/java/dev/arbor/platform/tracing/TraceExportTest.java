package dev.arbor.platform.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.ArborServer;
import dev.arbor.testing.HttpReply;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * A collector that is down or too slow never slows a request: the spans it cannot take are dropped and counted in
 * {@code arbor_otel_spans_dropped_total}.
 */
class TraceExportTest {
    private static final String ADMIN = "arb_trace_export_admin";
    private static final Pattern DROPPED = Pattern.compile("(?m)^arbor_otel_spans_dropped_total(?:\\{[^}]*})? (\\S+)$");

    private static double dropped(ArborServer server) {
        HttpReply metrics = server.http().get("/metrics", "Authorization", "Bearer " + ADMIN);
        Matcher found = DROPPED.matcher(metrics.body());
        assertThat(found.find()).as(metrics.body()).isTrue();
        return Double.parseDouble(found.group(1));
    }

    /** Serves 100 requests one after the other: the slowest one's time. */
    private static Duration slowestOf100(ArborServer server) {
        Duration slowest = Duration.ZERO;
        for (int i = 0; i < 100; i++) {
            long started = System.nanoTime();
            HttpReply reply = server.http().get("/health");
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            assertThat(reply.status()).isEqualTo(200);
            slowest = took.compareTo(slowest) > 0 ? took : slowest;
        }
        return slowest;
    }

    @Test
    void aCollectorThatIsDownCostsNoRequestAnythingAndItsSpansAreCounted() throws IOException {
        int closedPort;
        try (var socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        try (var server = ArborServer.start(Map.of(
                "ARBOR_ADMIN_TOKEN",
                ADMIN,
                "OTEL_EXPORTER_OTLP_ENDPOINT",
                "http://127.0.0.1:" + closedPort,
                "OTEL_BSP_SCHEDULE_DELAY",
                "20"))) {
            assertThat(dropped(server)).isZero();
            assertThat(slowestOf100(server)).isLessThan(Duration.ofSeconds(2));
            await().atMost(Duration.ofSeconds(20)).until(() -> dropped(server) > 0);
        }
    }

    @Test
    void aCollectorThatNeverAnswersFillsTheQueueWhichDropsWithoutWaiting() throws IOException {
        var held = new CopyOnWriteArrayList<Socket>();
        try (var silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> accept(silent, held));
            try (var server = ArborServer.start(Map.of(
                    "ARBOR_ADMIN_TOKEN", ADMIN,
                    "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:" + silent.getLocalPort(),
                    "OTEL_EXPORTER_OTLP_TIMEOUT", "3000",
                    "OTEL_BSP_SCHEDULE_DELAY", "20",
                    "OTEL_BSP_MAX_QUEUE_SIZE", "8",
                    "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", "4",
                    "OTEL_JAVA_EXPORTER_OTLP_RETRY_DISABLED", "true"))) {
                // the exporter waits 3 s for each answer that never comes: a request that waited for it would too
                assertThat(slowestOf100(server)).isLessThan(Duration.ofSeconds(2));
                await().atMost(Duration.ofSeconds(20)).until(() -> dropped(server) >= 50);
            }
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void withoutAnEndpointNothingIsDroppedAndTheCounterIsThere() {
        try (var server = ArborServer.start(Map.of("ARBOR_ADMIN_TOKEN", ADMIN))) {
            assertThat(server.http().get("/health").status()).isEqualTo(200);
            assertThat(dropped(server)).isZero();
        }
    }

    private static void accept(ServerSocket silent, List<Socket> held) {
        try {
            while (!silent.isClosed()) {
                held.add(silent.accept());
            }
        } catch (IOException e) {
            // closed at the test's end
        }
    }
}
