package dev.arbor.platform.metrics;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Request counts and latency histograms by route, plus the JVM's own gauges, in Prometheus text format. */
public final class HttpMetrics {
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final Map<Series, Timer> timers = new ConcurrentHashMap<>();

    private record Series(String method, String route, int status) {}

    public HttpMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
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
                .register(registry);
    }

    public String scrape() {
        return registry.scrape();
    }
}
