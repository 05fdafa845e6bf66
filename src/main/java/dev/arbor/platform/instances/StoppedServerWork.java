package dev.arbor.platform.instances;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.timers.Repeating;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Background work (decisions, evals, fits) that a stopped server left queued or running: failed once at start, and on a shared
 * database again at every heartbeat, since another server may stop at any time. {@code failUnfinished} marks the
 * unfinished work of servers no longer registered failed and says how many.
 */
public final class StoppedServerWork implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(StoppedServerWork.class);

    private final ServerInstances instances;
    private final String what;
    private final IntSupplier failUnfinished;
    private final ScheduledExecutorService sweeper;

    /** @param what the work, plural, for the log ({@code decisions}, {@code evals}, {@code fits}) */
    public StoppedServerWork(ServerInstances instances, String what, IntSupplier failUnfinished) {
        this.instances = requireNonNull(instances, "instances");
        this.what = requireNonNull(what, "what");
        this.failUnfinished = requireNonNull(failUnfinished, "failUnfinished");
        this.sweeper = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().daemon().name("arbor-" + what + "-owners").factory());
    }

    /** Fails what stopped servers left now, and on a shared database at every heartbeat. */
    public void start() {
        recover();
        if (instances.shared()) {
            Repeating.every(sweeper, instances.heartbeat(), instances.heartbeat(), what + " of stopped servers", () -> {
                try {
                    recover();
                } catch (ApiException e) {
                    // the database is out of reach, and said so itself: the next beat looks again
                    LOG.debug("{} of stopped servers could not be looked for: {}", what, e.getMessage());
                }
            });
        }
    }

    private void recover() {
        int failed = failUnfinished.getAsInt();
        if (failed > 0) {
            LOG.warn("{} {} were queued or running when their server stopped; they are marked failed", failed, what);
        }
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
    }
}
