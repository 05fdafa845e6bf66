package dev.arbor.platform.tracing;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.List;
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
    static final ContextKey<Tracer> TRACER = ContextKey.named("arbor.tracer");
    private static final W3CTraceContextPropagator W3C = W3CTraceContextPropagator.getInstance();
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

    /**
     * The first span of a trace of its own, for work that outlives the request that started it (a pipeline run): it
     * links to the span current here, when there is one, instead of being its child. {@link #traceparent} is what
     * to keep so that the work, resumed later or elsewhere, continues the trace with {@link #continued}.
     */
    public static Traced root(Tracing tracing, String name, SpanKind kind) {
        Context context = Context.current();
        SpanBuilder builder =
                tracing.tracer().spanBuilder(name).setSpanKind(kind).setNoParent();
        SpanContext starter = Span.fromContext(context).getSpanContext();
        if (starter.isValid()) {
            builder.addLink(starter);
        }
        return new Traced(builder.startSpan(), context.with(TRACER, tracing.tracer()));
    }

    /**
     * A span of the trace a kept {@link #traceparent} names, as a child of the span it names: work resumed after a
     * restart, or by another server, joins the trace it began in. A value that names no trace (the work began while
     * tracing was off) gives a no-op span.
     */
    public static Traced continued(Tracing tracing, String traceparent, String name, SpanKind kind) {
        Context parent = W3C.extract(Context.root(), traceparent, Kept.INSTANCE);
        Span span = Span.fromContext(parent).getSpanContext().isValid()
                ? tracing.tracer()
                        .spanBuilder(name)
                        .setSpanKind(kind)
                        .setParent(parent)
                        .startSpan()
                : Span.getInvalid();
        return new Traced(span, Context.current().with(TRACER, tracing.tracer()));
    }

    /**
     * The span as a W3C {@code traceparent} value, to keep where work continues later; empty when the span is not
     * recorded anywhere (tracing off).
     */
    public Optional<String> traceparent() {
        SpanContext ids = span.getSpanContext();
        return ids.isValid()
                ? Optional.of("00-" + ids.getTraceId() + "-" + ids.getSpanId() + "-"
                        + ids.getTraceFlags().asHex())
                : Optional.empty();
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

    /** Reads a kept {@code traceparent} value as the one header of a carrier. */
    private enum Kept implements TextMapGetter<String> {
        INSTANCE;

        // still abstract, though deprecated: W3C extraction reads the headers it knows by name, never the list
        @Override
        @SuppressWarnings("deprecation")
        public Iterable<String> keys(String carrier) {
            return List.of("traceparent");
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
            return "traceparent".equals(key) ? carrier : null;
        }
    }

    static void restore(String key, @Nullable String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
