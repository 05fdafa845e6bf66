package dev.arbor.platform.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * A span made current on this thread until closed, closing ends it. While it is current, every log line written on
 * the thread carries its {@code trace_id} and {@code span_id}, and every call the outbound client makes carries its
 * {@code traceparent}.
 *
 * <p>The context a request's span is made current in carries the server's tracer, so the parts the request passes
 * through (a router's steps, each endpoint attempt) start their spans with {@link #child} without each being handed
 * one; outside a traced request those are no-ops. Work that starts on its own (a pipeline run) is handed the
 * {@link Tracing}.
 *
 * <p>Attributes describe the work, never its content: no secret, prompt or answer is ever one.
 */
public final class Traced implements AutoCloseable {
    static final String TRACE_ID = "trace_id";
    static final String SPAN_ID = "span_id";
    private static final ContextKey<Tracer> TRACER = ContextKey.named("arbor.tracer");
    private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

    private final Span span;
    private final Scope scope;
    private final Thread thread;
    private final @Nullable String outerTrace;
    private final @Nullable String outerSpan;

    @SuppressWarnings("MustBeClosedChecker") // the scope is closed by close(), on this thread
    private Traced(Span span, Context context) {
        this.span = span;
        this.thread = Thread.currentThread();
        this.outerTrace = MDC.get(TRACE_ID);
        this.outerSpan = MDC.get(SPAN_ID);
        this.scope = context.with(span).makeCurrent();
        SpanContext ids = span.getSpanContext();
        if (ids.isValid()) {
            MDC.put(TRACE_ID, ids.getTraceId());
            MDC.put(SPAN_ID, ids.getSpanId());
        }
    }

    /** Starts {@code span}, already begun by {@code tracer} under {@code parent}, as the current one. */
    static Traced current(Span span, Context parent, Tracer tracer) {
        return new Traced(span, parent.with(TRACER, tracer));
    }

    /**
     * A span under the current one, started by the tracer of the traced request this thread serves; when there is
     * none, or tracing is off, a no-op one (which still restores what it replaced when closed).
     */
    public static Traced child(String name, SpanKind kind) {
        Context context = Context.current();
        Tracer tracer = context.get(TRACER);
        Span span = tracer == null
                        || !Span.fromContext(context).getSpanContext().isValid()
                ? Span.getInvalid()
                : tracer.spanBuilder(name).setSpanKind(kind).setParent(context).startSpan();
        return new Traced(span, context);
    }

    /** A span of its own with {@code tracing}'s tracer, under the current one if any: for work that starts itself. */
    public static Traced start(Tracing tracing, String name, SpanKind kind) {
        Context context = Context.current();
        Span span = tracing.tracer()
                .spanBuilder(name)
                .setSpanKind(kind)
                .setParent(context)
                .startSpan();
        return new Traced(span, context.with(TRACER, tracing.tracer()));
    }

    public Traced with(String key, String value) {
        span.setAttribute(key, value);
        return this;
    }

    public Traced with(String key, long value) {
        span.setAttribute(key, value);
        return this;
    }

    /** Marks the work failed: {@code type} a short, fixed kind of failure, {@code description} what happened. */
    public void failed(String type, String description) {
        span.setAttribute(ERROR_TYPE, type);
        span.setStatus(StatusCode.ERROR, description);
    }

    public void rename(String name) {
        span.updateName(name);
    }

    /** The span's trace id, 32 hex digits; empty when the trace is not recorded anywhere (tracing off). */
    public Optional<String> traceId() {
        SpanContext ids = span.getSpanContext();
        return ids.isValid() ? Optional.of(ids.getTraceId()) : Optional.empty();
    }

    /**
     * Ends the span and makes current again what was before. On another thread than the one it was made current on
     * (a request answered from a future) it only ends the span: that thread's context is not this one's to restore.
     */
    @Override
    public void close() {
        span.end();
        if (Thread.currentThread() != thread) {
            return;
        }
        scope.close();
        restore(TRACE_ID, outerTrace);
        restore(SPAN_ID, outerSpan);
    }

    private static void restore(String key, @Nullable String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
