package dev.arbor.studio.erasure;

import static java.util.Objects.requireNonNull;

import dev.arbor.platform.errors.ApiException;
import dev.arbor.platform.timers.Repeating;
import dev.arbor.studio.files.StudioFiles;
import dev.arbor.studio.history.HistoryStore;
import dev.arbor.studio.templates.Templates;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps history within its retention and its size: decisions older than their template's retention days (or the
 * studio's) are deleted, then the oldest until history is under its size cap, then files nothing uses any more; a
 * minute after start, every hour, and whenever the rules change. Pinned decisions stay, and labelled ones while
 * {@code keep_labelled} is on; 0 days means for ever, a cap of 0 no cap.
 */
public final class Retention implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Retention.class);
    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();

    /**
     * What the studio's settings say history keeps: the days a decision is kept (0 for ever), whether labelled ones
     * are spared, and the size cap in bytes (0 for none; {@code maxStorageGb} as set, for the log).
     */
    public record Rules(int retentionDays, boolean keepLabelled, long maxStorageBytes, double maxStorageGb) {}

    /** When the last sweep ran, how many decisions it deleted and how many unused files it removed. */
    public record Sweep(long atMillis, int deleted, int filesRemoved) {}

    private final HistoryStore store;
    private final Supplier<Rules> rules;
    private final Templates templates;
    private final StudioFiles files;
    private final Clock clock;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("arbor-retention").factory());
    private final AtomicReference<Sweep> last = new AtomicReference<>();

    public Retention(HistoryStore store, Supplier<Rules> rules, Templates templates, StudioFiles files, Clock clock) {
        this.store = requireNonNull(store, "store");
        this.rules = requireNonNull(rules, "rules");
        this.templates = requireNonNull(templates, "templates");
        this.files = requireNonNull(files, "files");
        this.clock = requireNonNull(clock, "clock");
    }

    public void start() {
        Repeating.every(timer, Duration.ofMinutes(1), Duration.ofHours(1), "the history sweep", () -> {
            try {
                sweep();
            } catch (ApiException e) {
                // the database is out of reach, and said so itself: no stack trace to add
                LOG.warn("the history sweep could not run: {}", e.getMessage());
            }
        });
    }

    /** Deletes what the rules no longer keep; returns how many decisions went. */
    public synchronized Sweep sweep() {
        Rules values = rules.get();
        long now = clock.millis();
        Map<String, Integer> own = templates.retentionDays();
        int deleted = 0;
        for (var rule : own.entrySet()) {
            if (rule.getValue() > 0) {
                deleted += store.deleteOlderThan(
                        now - rule.getValue() * DAY_MILLIS,
                        Optional.of(rule.getKey()),
                        java.util.Set.of(),
                        values.keepLabelled());
            }
        }
        if (values.retentionDays() > 0) {
            deleted += store.deleteOlderThan(
                    now - values.retentionDays() * DAY_MILLIS, Optional.empty(), own.keySet(), values.keepLabelled());
        }
        long excess = values.maxStorageBytes() > 0 ? store.storedBytes() - values.maxStorageBytes() : 0;
        if (excess > 0) {
            int overSize = store.deleteOldest(excess, values.keepLabelled());
            LOG.info(
                    "history was {} bytes over its cap of {} GB; the {} oldest decisions were deleted",
                    excess,
                    values.maxStorageGb(),
                    overSize);
            deleted += overSize;
        }
        StudioFiles.Sweep removed = files.sweep();
        var sweep = new Sweep(now, deleted, removed.files());
        last.set(sweep);
        if (deleted > 0 || removed.files() > 0) {
            LOG.info(
                    "the history sweep deleted {} decisions past their retention and {} unused files",
                    deleted,
                    removed.files());
        }
        return sweep;
    }

    public Optional<Sweep> last() {
        return Optional.ofNullable(last.get());
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
