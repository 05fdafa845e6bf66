package dev.arbor.platform.tracing;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.internal.AutoConfigureUtil;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import io.opentelemetry.sdk.autoconfigure.spi.internal.DefaultConfigProperties;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.export.MemoryMode;
import io.opentelemetry.sdk.metrics.InstrumentType;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.export.CollectionRegistration;
import io.opentelemetry.sdk.metrics.export.MetricReader;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The server's tracing: OpenTelemetry's SDK built from {@link TracingSettings} (the standard {@code OTEL_*} settings:
 * service name, sampler, headers, resource attributes, batch sizes), exporting over OTLP/HTTP with protobuf; or, when
 * no endpoint is named, OpenTelemetry's no-op, which costs a request nothing. Spans wait in the batch processor's
 * bounded queue and leave on its own thread: an endpoint that is down or slow never holds a request up; a span that
 * finds the queue full, or whose export failed, is dropped and counted ({@code arbor_otel_spans_dropped_total}).
 * Nothing is registered globally: the parts are handed this object.
 */
public final class Tracing implements AutoCloseable {
    static final String INSTRUMENTATION = "dev.arbor";
    private static final AttributeKey<Boolean> DROPPED = AttributeKey.booleanKey("dropped");

    private final OpenTelemetry openTelemetry;
    private final @Nullable OpenTelemetrySdk sdk;
    private final Tracer tracer;

    private Tracing(OpenTelemetry openTelemetry, @Nullable OpenTelemetrySdk sdk) {
        this.openTelemetry = openTelemetry;
        this.sdk = sdk;
        this.tracer = openTelemetry.getTracer(INSTRUMENTATION);
    }

    /** No tracing: spans are OpenTelemetry's no-op ones. */
    public static Tracing off() {
        return new Tracing(OpenTelemetry.noop(), null);
    }

    /**
     * Tracing as {@code settings} say, its dropped spans counted in {@code meters}.
     *
     * @throws IllegalArgumentException when OpenTelemetry refuses a setting (an unknown sampler, a protocol other than
     *     {@code http/protobuf})
     */
    public static Tracing start(TracingSettings settings, MeterRegistry meters) {
        var dropped = new Dropped();
        FunctionCounter.builder("arbor.otel.spans.dropped", dropped, Dropped::count)
                .description("Spans that never reached the OTLP endpoint: the export queue was full, or the export "
                        + "failed")
                .register(meters);
        if (!settings.enabled()) {
            return off();
        }
        var properties = new HashMap<String, String>();
        properties.put("otel.service.name", "arbor");
        properties.put("otel.exporter.otlp.protocol", "http/protobuf");
        properties.put("otel.metrics.exporter", "none");
        properties.put("otel.logs.exporter", "none");
        properties.putAll(settings.properties());
        Map<String, String> all = Map.copyOf(properties);
        String protocol =
                all.getOrDefault("otel.exporter.otlp.traces.protocol", all.get("otel.exporter.otlp.protocol"));
        if (!"http/protobuf".equals(protocol)) {
            // gRPC would need a sender (OkHttp's or grpc-java's) this server does not ship
            throw new IllegalArgumentException(
                    "OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf, the one this server exports, not " + protocol);
        }
        try {
            var builder = AutoConfiguredOpenTelemetrySdk.builder()
                    .disableShutdownHook()
                    .addSpanExporterCustomizer((exporter, config) -> new Counted(exporter, dropped))
                    .addMeterProviderCustomizer(
                            (meterProvider, config) -> meterProvider.registerMetricReader(dropped.queue));
            // the settings Arbor read, and only those: not the process's environment or system properties again
            AutoConfigureUtil.setConfigPropertiesCustomizer(
                    builder, ignored -> DefaultConfigProperties.createFromMap(all));
            OpenTelemetrySdk sdk = builder.build().getOpenTelemetrySdk();
            return new Tracing(sdk, sdk);
        } catch (ConfigurationException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }

    public boolean enabled() {
        return sdk != null;
    }

    public Tracer tracer() {
        return tracer;
    }

    public OpenTelemetry openTelemetry() {
        return openTelemetry;
    }

    /** Exports the spans still queued (waiting up to 10 s), then stops the exporter. */
    @Override
    public void close() {
        if (sdk != null) {
            sdk.shutdown().join(10, TimeUnit.SECONDS);
        }
    }

    /** The spans lost on the way out: counted by the exporter (failed exports) and by the queue (full). */
    private static final class Dropped {
        private final AtomicLong failedExports = new AtomicLong();
        private final QueueDrops queue = new QueueDrops();

        double count() {
            return failedExports.get() + queue.dropped();
        }
    }

    /** The exporter, counting the spans of each export that failed (the endpoint down, refusing, too slow). */
    private record Counted(SpanExporter exporter, Dropped dropped) implements SpanExporter {
        @Override
        public CompletableResultCode export(Collection<SpanData> spans) {
            int count = spans.size();
            CompletableResultCode result = exporter.export(spans);
            result.whenComplete(() -> {
                if (!result.isSuccess()) {
                    dropped.failedExports.addAndGet(count);
                }
            });
            return result;
        }

        @Override
        public CompletableResultCode flush() {
            return exporter.flush();
        }

        @Override
        public CompletableResultCode shutdown() {
            return exporter.shutdown();
        }
    }

    /**
     * Reads the batch span processor's own count of the spans it dropped because its queue was full (its
     * {@code processedSpans} counter with {@code dropped=true}), read when {@code /metrics} is scraped.
     */
    private static final class QueueDrops implements MetricReader {
        private volatile CollectionRegistration registration = CollectionRegistration.noop();

        long dropped() {
            long total = 0;
            for (MetricData metric : registration.collectAllMetrics()) {
                if (metric.getName().equals("processedSpans")) {
                    for (LongPointData point : metric.getLongSumData().getPoints()) {
                        if (Boolean.TRUE.equals(point.getAttributes().get(DROPPED))) {
                            total += point.getValue();
                        }
                    }
                }
            }
            return total;
        }

        @Override
        public void register(CollectionRegistration registration) {
            this.registration = registration;
        }

        @Override
        public AggregationTemporality getAggregationTemporality(InstrumentType instrumentType) {
            return AggregationTemporality.CUMULATIVE;
        }

        @Override
        public MemoryMode getMemoryMode() {
            return MemoryMode.IMMUTABLE_DATA;
        }

        @Override
        public CompletableResultCode forceFlush() {
            return CompletableResultCode.ofSuccess();
        }

        @Override
        public CompletableResultCode shutdown() {
            registration = CollectionRegistration.noop();
            return CompletableResultCode.ofSuccess();
        }
    }
}
