package dev.arbor.platform.tracing;

import static java.util.Objects.requireNonNull;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The span of each request the server serves, a child of the caller's trace when its W3C {@code traceparent} (and
 * {@code tracestate}) says one; a header that is not one is ignored, and the request starts a trace of its own.
 */
public final class ServerSpans {
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();

    private final Tracing tracing;

    public ServerSpans(Tracing tracing) {
        this.tracing = requireNonNull(tracing, "tracing");
    }

    /**
     * A {@code SERVER} span for a request, current until closed; {@code header} reads the request's headers. Its name
     * is the method until {@link Traced#rename} gives it the route.
     */
    public Traced start(String method, Function<String, @Nullable String> header) {
        Context parent = tracing.enabled() ? W3C.extract(Context.root(), header, Headers.INSTANCE) : Context.root();
        Span span = tracing.tracer()
                .spanBuilder(method)
                .setSpanKind(SpanKind.SERVER)
                .setParent(parent)
                .startSpan();
        return Traced.current(span, parent, tracing.tracer());
    }

    private enum Headers implements TextMapGetter<Function<String, @Nullable String>> {
        INSTANCE;

        // still abstract, though deprecated: W3C extraction reads the two headers it knows by name, never the list
        @Override
        @SuppressWarnings("deprecation")
        public Iterable<String> keys(Function<String, @Nullable String> carrier) {
            return List.of();
        }

        @Override
        public @Nullable String get(@Nullable Function<String, @Nullable String> carrier, String key) {
            return carrier == null ? null : carrier.apply(key);
        }
    }
}
