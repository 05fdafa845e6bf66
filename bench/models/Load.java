import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** The load both model benchmarks put on what they measure: callers in parallel, latencies and throughput. */
final class Load {
    private Load() {}

    interface Call {
        Object call(int i) throws Exception;
    }

    record Result(double perSecond, double p50, double p99) {}

    /** Warms up with at least 8 callers for {@code warmSeconds}, then calls from {@code callers} for {@code seconds}. */
    static Result run(int callers, int seconds, int warmSeconds, Call call) throws Exception {
        calls(Math.max(callers, 8), warmSeconds, call);
        return result(calls(callers, seconds, call), seconds);
    }

    /**
     * Two ways of doing the same work, measured in turns of {@code seconds} for {@code rounds} rounds (after a warm-up
     * of each), so that a shared machine's quiet and busy moments fall on both alike.
     */
    static Result[] alternate(int callers, int seconds, int rounds, int warmSeconds, Call first, Call second)
            throws Exception {
        calls(Math.max(callers, 8), warmSeconds, first);
        calls(Math.max(callers, 8), warmSeconds, second);
        var a = new ArrayList<Long>();
        var b = new ArrayList<Long>();
        for (int round = 0; round < rounds; round++) {
            a.addAll(calls(callers, seconds, first));
            b.addAll(calls(callers, seconds, second));
        }
        return new Result[] {result(a, seconds * rounds), result(b, seconds * rounds)};
    }

    private static Result result(List<Long> latencies, int seconds) {
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Result(
                sorted.length / (double) seconds,
                sorted[sorted.length / 2] / 1e6,
                sorted[(int) (sorted.length * 0.99)] / 1e6);
    }

    private static List<Long> calls(int callers, int seconds, Call call) throws Exception {
        try (var pool = Executors.newVirtualThreadPerTaskExecutor()) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            var futures = new ArrayList<Future<List<Long>>>();
            for (int c = 0; c < callers; c++) {
                int offset = c;
                futures.add(pool.submit((Callable<List<Long>>) () -> {
                    var latencies = new ArrayList<Long>();
                    for (int i = offset; System.nanoTime() < end; i += callers) {
                        long start = System.nanoTime();
                        call.call(i);
                        latencies.add(System.nanoTime() - start);
                    }
                    return latencies;
                }));
            }
            var all = new ArrayList<Long>();
            for (var future : futures) {
                all.addAll(future.get());
            }
            return all;
        }
    }
}
