package dev.arbor.platform.timers;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work that runs again and again with a pause between the end of one round and the start of the next. A task given
 * straight to {@link ScheduledExecutorService#scheduleWithFixedDelay} stops for good the first time it throws, and
 * says so only to whoever reads its future; here a round that throws is logged and the next one runs as planned.
 */
public final class Repeating {
    private static final Logger LOG = LoggerFactory.getLogger(Repeating.class);

    private Repeating() {}

    /**
     * Runs {@code task} on {@code timer} after {@code first}, then {@code every} after each round ends, until the
     * timer is shut down; {@code what} names the work in the log when a round fails.
     */
    public static void every(
            ScheduledExecutorService timer, Duration first, Duration every, String what, Runnable task) {
        requireNonNull(what, "what");
        requireNonNull(task, "task");
        Runnable kept = () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.warn("{} failed; it runs again in {} ms", what, every.toMillis(), e);
            }
        };
        // a round never throws, so the future only ever ends by the timer's shutdown: nothing to read from it
        ScheduledFuture<?> _ =
                timer.scheduleWithFixedDelay(kept, first.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }
}
