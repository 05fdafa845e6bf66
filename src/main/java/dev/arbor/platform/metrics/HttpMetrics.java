package dev.arbor.platform.metrics;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Request counts and latency histograms by route, among the server's other {@link Metrics}. */
public final class HttpMetrics {
    private final Metrics metrics;
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();

    private record Series(String method, String route, int status) {}

    public HttpMetrics(Metrics metrics) {
        this.metrics = requireNonNull(metrics, "metrics");
    }

    /**
     * Records one finished request. {@code route} is the route's path template ({@code /projects/{id}}), never the
     * raw path, so that ids do not explode the number of series.
     */
    public void record(String method, String route, int status, long nanos) {
        timers.computeIfAbsent(new Series(method, route, status), this::timer).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(Series series) {
        return Timer.builder("http.server.requests")
                .description("HTTP requests served, by route")
                .tag("method", series.method())
                .tag("route", series.route())
                .tag("status", Integer.toString(series.status()))
                .publishPercentileHistogram()
                .serviceLevelObjectives(Duration.ofMillis(5), Duration.ofMillis(50), Duration.ofMillis(500))
                .register(metrics.registry());
    }

    /** Every meter of the server, not only these. */
    public String scrape() {
        return metrics.scrape();
    }
}
