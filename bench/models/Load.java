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
        return calls(callers, seconds, call);
    }

    private static Result calls(int callers, int seconds, Call call) throws Exception {
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
            long[] sorted = all.stream().mapToLong(Long::longValue).sorted().toArray();
            return new Result(sorted.length / (double) seconds, sorted[sorted.length / 2] / 1e6,
                    sorted[(int) (sorted.length * 0.99)] / 1e6);
        }
    }
}
