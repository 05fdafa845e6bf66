package dev.arbor.platform.ratelimits;

import static java.util.Objects.requireNonNull;

import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Buckets in this server's memory. Keys may come from callers (a header's value), so the map is bounded: once it
 * holds many keys, those idle for a whole window are dropped — such a bucket is full again, so dropping it changes no
 * verdict.
 */
final class MemoryRateLimiter implements RateLimiter {
    static final int SWEEP_AT = 10_000;

    private final TimeMeter time;
    private final ConcurrentHashMap<String, Entry> buckets = new ConcurrentHashMap<>();
    /** Doubles past a sweep that left many keys (all busy), so that sweeps stay rare whatever the load. */
    private final AtomicLong sweepAt = new AtomicLong(SWEEP_AT);

    private record Entry(Bucket bucket, long windowNanos, AtomicLong lastUsedNanos) {}

    MemoryRateLimiter(TimeMeter time) {
        this.time = requireNonNull(time, "time");
    }

    @Override
    public Verdict take(String key, Limit limit) {
        requireNonNull(key, "key");
        requireNonNull(limit, "limit");
        long now = time.currentTimeNanos();
        Verdict verdict = Buckets.verdict(limit, entry(key, limit, now).bucket().tryConsumeAndReturnRemaining(1));
        if (buckets.size() > sweepAt.get()) {
            sweep(now);
        }
        return verdict;
    }

    @Override
    public void spend(String key, Limit limit, long amount) {
        requireNonNull(key, "key");
        requireNonNull(limit, "limit");
        if (amount > 0) {
            var _ = entry(key, limit, time.currentTimeNanos()).bucket().consumeIgnoringRateLimits(amount);
        }
    }

    private Entry entry(String key, Limit limit, long now) {
        Entry entry = buckets.computeIfAbsent(
                Buckets.name(key, limit),
                name -> new Entry(
                        Bucket.builder()
                                .withCustomTimePrecision(time)
                                .addLimit(Buckets.bandwidth(limit))
                                .build(),
                        limit.window().length().toNanos(),
                        new AtomicLong(now)));
        entry.lastUsedNanos().set(now);
        return entry;
    }

    private void sweep(long now) {
        buckets.values().removeIf(e -> now - e.lastUsedNanos().get() >= e.windowNanos());
        sweepAt.set(Math.max(SWEEP_AT, 2L * buckets.size()));
    }

    /** How many buckets are held now. */
    int size() {
        return buckets.size();
    }
}
