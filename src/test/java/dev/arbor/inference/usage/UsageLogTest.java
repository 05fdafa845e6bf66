package dev.arbor.inference.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.arbor.inference.openai.Operation;
import dev.arbor.platform.db.Database;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Usage rows are never dropped while the server runs: a full queue makes requests wait for the database instead. */
class UsageLogTest {
    private static final Logger LOG = LoggerFactory.getLogger(UsageLogTest.class);

    @TempDir
    Path folder;

    private static UsageLog.Entry entry(int i) {
        return new UsageLog.Entry(
                System.currentTimeMillis(),
                Optional.of("rtr_flood"),
                "endpoint-" + (i % 4),
                "flood",
                Operation.CHAT_COMPLETIONS,
                Outcome.OK,
                200,
                1,
                OptionalLong.of(10),
                OptionalLong.of(5),
                1_000,
                Optional.of("prj_flood"),
                Optional.empty(),
                OptionalLong.of(1_500_000));
    }

    @Test
    void aFullQueueSlowsRequestsToTheDatabasesPaceAndLosesNoRow() throws Exception {
        int callers = 8;
        int each = 2_000;
        var meters = new SimpleMeterRegistry();
        try (Database database = Database.openSqlite(folder.resolve("usage.db"));
                var log = new UsageLog(database, Clock.systemUTC(), meters, 16);
                var pool = Executors.newFixedThreadPool(callers)) {
            log.start();
            long started = System.nanoTime();
            var done = new ArrayList<Future<?>>();
            for (int c = 0; c < callers; c++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        log.record(entry(i));
                    }
                }));
            }
            for (Future<?> caller : done) {
                caller.get();
            }
            long queuedMillis = (System.nanoTime() - started) / 1_000_000;
            await().atMost(Duration.ofSeconds(60))
                    .until(() ->
                            log.summary("rtr_flood", java.time.Instant.EPOCH).requests() == (long) callers * each);
            long storedMillis = (System.nanoTime() - started) / 1_000_000;
            LOG.info(
                    "{} rows through a queue of 16: all queued after {} ms, all stored after {} ms ({} rows/s)",
                    callers * each,
                    queuedMillis,
                    storedMillis,
                    callers * each * 1000L / Math.max(1, storedMillis));
            assertThat(meters.counter("arbor.routing.usage.waits").count())
                    .as("callers waited for room")
                    .isPositive();
            assertThat(meters.counter("arbor.routing.usage.dropped").count()).isZero();
        }
    }
}
