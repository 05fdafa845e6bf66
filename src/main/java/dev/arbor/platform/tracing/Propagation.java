package dev.arbor.platform.tracing;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import java.util.function.BiConsumer;

/** The W3C trace context of the current span, sent with every call this server makes on a traced request's behalf. */
public final class Propagation {
    private Propagation() {}

    /**
     * Adds {@code traceparent} (and {@code tracestate}) naming the current span to an outgoing call's headers; adds
     * nothing when no span is current, or tracing is off.
     */
    public static void inject(BiConsumer<String, String> header) {
        W3CTraceContextPropagator.getInstance().inject(Context.current(), header, BiConsumer::accept);
    }
}
