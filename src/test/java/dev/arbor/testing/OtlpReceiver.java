package dev.arbor.testing;

import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * An OTLP/HTTP trace endpoint on loopback ({@code POST /v1/traces}, protobuf), as a tracing backend's collector: it
 * decodes each export with OpenTelemetry's own protocol classes and keeps every span it was sent.
 */
public final class OtlpReceiver implements AutoCloseable {
    private static final HexFormat HEX = HexFormat.of();

    /** A span's link to another span (the work that started it, in another trace), ids in hex. */
    public record Link(String traceId, String spanId) {}

    /** A span's event: what happened at a moment of the span, with its attributes as strings. */
    public record Event(String name, Map<String, String> attributes) {}

    /**
     * One span as received: ids in hex (the parent's empty for a root), its attributes as strings, its links and
     * events.
     */
    public record ReceivedSpan(
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            String kind,
            Map<String, String> attributes,
            String statusCode,
            String statusMessage,
            Map<String, String> resource,
            List<Link> links,
            List<Event> events) {

        public Optional<String> attribute(String key) {
            return Optional.ofNullable(attributes.get(key));
        }
    }

    private final HttpServer server;
    private final List<ReceivedSpan> spans = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/v1/traces", this::receive);
        server.start();
    }

    /** The base URL, as {@code OTEL_EXPORTER_OTLP_ENDPOINT} names it. */
    public String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<ReceivedSpan> spans() {
        return List.copyOf(spans);
    }

    /** The spans of one trace. */
    public List<ReceivedSpan> trace(String traceId) {
        return spans.stream().filter(span -> span.traceId().equals(traceId)).toList();
    }

    /** Waits (up to 10 s) for a span that {@code test} accepts, and gives it. */
    public ReceivedSpan awaitSpan(Predicate<ReceivedSpan> test) {
        return await().atMost(Duration.ofSeconds(10))
                .until(() -> spans.stream().filter(test).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    /** The span of {@code spans} named {@code name}; fails, naming those there are, when there is none. */
    public static ReceivedSpan named(List<ReceivedSpan> spans, String name) {
        return spans.stream()
                .filter(span -> span.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in "
                        + spans.stream().map(ReceivedSpan::name).toList()));
    }

    /** Waits (up to 10 s) until trace {@code traceId} holds at least {@code count} spans, and gives them. */
    public List<ReceivedSpan> awaitTrace(String traceId, int count) {
        return await().atMost(Duration.ofSeconds(10)).until(() -> trace(traceId), spans -> spans.size() >= count);
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (InputStream in = exchange.getRequestBody()) {
            var request = ExportTraceServiceRequest.parseFrom(in.readAllBytes());
            for (ResourceSpans resourceSpans : request.getResourceSpansList()) {
                Map<String, String> resource =
                        attributes(resourceSpans.getResource().getAttributesList());
                for (ScopeSpans scope : resourceSpans.getScopeSpansList()) {
                    for (var span : scope.getSpansList()) {
                        spans.add(new ReceivedSpan(
                                HEX.formatHex(span.getTraceId().toByteArray()),
                                HEX.formatHex(span.getSpanId().toByteArray()),
                                HEX.formatHex(span.getParentSpanId().toByteArray()),
                                span.getName(),
                                span.getKind().name(),
                                attributes(span.getAttributesList()),
                                span.getStatus().getCode().name(),
                                span.getStatus().getMessage(),
                                resource,
                                span.getLinksList().stream()
                                        .map(link -> new Link(
                                                HEX.formatHex(link.getTraceId().toByteArray()),
                                                HEX.formatHex(link.getSpanId().toByteArray())))
                                        .toList(),
                                span.getEventsList().stream()
                                        .map(event -> new Event(event.getName(), attributes(event.getAttributesList())))
                                        .toList()));
                    }
                }
            }
        }
        byte[] answer = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
        exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
        exchange.sendResponseHeaders(200, answer.length == 0 ? -1 : answer.length);
        exchange.getResponseBody().write(answer);
        exchange.close();
    }

    private static Map<String, String> attributes(List<KeyValue> list) {
        var map = new LinkedHashMap<String, String>();
        for (KeyValue kv : list) {
            AnyValue value = kv.getValue();
            map.put(
                    kv.getKey(),
                    switch (value.getValueCase()) {
                        case STRING_VALUE -> value.getStringValue();
                        case INT_VALUE -> Long.toString(value.getIntValue());
                        case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
                        case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
                        default -> value.toString();
                    });
        }
        return map;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
