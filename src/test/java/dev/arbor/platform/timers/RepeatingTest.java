package dev.arbor.platform.timers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RepeatingTest {
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aRoundThatThrowsDoesNotStopTheRoundsAfterIt() {
        var rounds = new AtomicInteger();
        Repeating.every(timer, Duration.ZERO, Duration.ofMillis(10), "a test's work", () -> {
            if (rounds.incrementAndGet() == 1) {
                throw new IllegalStateException("the first round fails");
            }
        });

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(rounds.get()).isGreaterThanOrEqualTo(3));
    }
}
