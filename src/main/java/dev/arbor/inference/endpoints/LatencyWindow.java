package dev.arbor.inference.endpoints;

import java.util.Arrays;

/**
 * An endpoint's last {@value #SIZE} latencies and their p50 and p95, recomputed every {@value #RECOMPUTE_EVERY}
 * samples (a sort of the window) so that a request choosing by latency only reads two numbers.
 */
final class LatencyWindow {
    static final int SIZE = 256;
    private static final int RECOMPUTE_EVERY = 8;

    private final long[] nanos = new long[SIZE];
    private int count;
    private int next;
    private volatile double p50Millis = Double.NaN;
    private volatile double p95Millis = Double.NaN;
    private volatile int samples;

    synchronized void record(long latencyNanos) {
        nanos[next] = latencyNanos;
        next = (next + 1) % SIZE;
        count = Math.min(count + 1, SIZE);
        if (count <= RECOMPUTE_EVERY || next % RECOMPUTE_EVERY == 0) {
            long[] sorted = Arrays.copyOf(nanos, count);
            Arrays.sort(sorted);
            p50Millis = percentile(sorted, 0.50);
            p95Millis = percentile(sorted, 0.95);
        }
        samples = count;
    }

    private static double percentile(long[] sorted, double q) {
        int index = (int) Math.ceil(q * sorted.length) - 1;
        return sorted[Math.max(0, index)] / 1_000_000.0;
    }

    /** How many latencies the window holds (at most {@value #SIZE}). */
    int samples() {
        return samples;
    }

    /** NaN until a first sample. */
    double p50Millis() {
        return p50Millis;
    }

    double p95Millis() {
        return p95Millis;
    }
}
