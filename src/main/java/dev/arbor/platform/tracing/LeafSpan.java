package dev.arbor.platform.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;

/**
 * A span under the current one that is never made current: for short work with nothing beneath it (a database
 * statement), begun and ended by callbacks that may not come in pairs. Nothing of the thread's context or log fields
 * changes, so one never ended leaves no trace on the thread. Outside traced work, or with tracing off, a no-op.
 */
public final class LeafSpan {
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Span span;

    private LeafSpan(Span span) {
        this.span = span;
    }

    /** A leaf span of the work current on this thread, named {@code name}. */
    public static LeafSpan start(String name, SpanKind kind) {
        Context context = Context.current();
        Tracer tracer = context.get(Traced.TRACER);
        return new LeafSpan(
                tracer == null || !Span.fromContext(context).getSpanContext().isValid()
                        ? Span.getInvalid()
                        : tracer.spanBuilder(name)
                                .setSpanKind(kind)
                                .setParent(context)
                                .startSpan());
    }

    /** Whether the span is recorded: false outside traced work, with tracing off, or when the trace is not sampled. */
    public boolean recording() {
        return span.isRecording();
    }

    public LeafSpan with(String key, String value) {
        span.setAttribute(key, value);
        return this;
    }

    /** Marks the work failed: {@code type} a short, fixed kind of failure. */
    public void failed(String type, String description) {
        span.setAttribute(ERROR_TYPE, type);
        span.setStatus(StatusCode.ERROR, description);
    }

    public void end() {
        span.end();
    }
}
