package dev.arbor.platform.tracing;

import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The W3C trace context of the current span, sent with every call this server makes on a traced request's behalf, and
 * carried to the threads that do part of its work.
 */
public final class Propagation {
    private Propagation() {}

    /**
     * Adds {@code traceparent} (and {@code tracestate}) naming the current span to an outgoing call's headers; adds
     * nothing when no span is current, or tracing is off.
     */
    public static void inject(BiConsumer<String, String> header) {
        W3CTraceContextPropagator.getInstance().inject(Context.current(), header, BiConsumer::accept);
    }

    /**
     * The {@code traceparent} (and {@code tracestate}) headers naming the current span, captured now for a call that
     * a library makes later on a thread of its own (the MCP SDK's); empty when no span is current, or tracing is off.
     */
    public static Map<String, String> headers() {
        var headers = new LinkedHashMap<String, String>();
        inject(headers::put);
        return Map.copyOf(headers);
    }

    /**
     * {@code task}, to run on another thread (an executor's, a library's) as part of the work current here: while it
     * runs, the span current now is current there too (its spans are children of it, its calls carry its
     * {@code traceparent}, its log lines its ids), and what that thread had before is restored after.
     */
    public static <T> Callable<T> carried(Callable<T> task) {
        Context context = Context.current();
        @Nullable String trace = MDC.get(Traced.TRACE_ID);
        @Nullable String span = MDC.get(Traced.SPAN_ID);
        return () -> {
            @Nullable String outerTrace = MDC.get(Traced.TRACE_ID);
            @Nullable String outerSpan = MDC.get(Traced.SPAN_ID);
            Traced.restore(Traced.TRACE_ID, trace);
            Traced.restore(Traced.SPAN_ID, span);
            try (Scope _ = context.makeCurrent()) {
                return task.call();
            } finally {
                Traced.restore(Traced.TRACE_ID, outerTrace);
                Traced.restore(Traced.SPAN_ID, outerSpan);
            }
        };
    }

    /** {@link #carried(Callable)} for work that returns nothing. */
    public static Runnable carried(Runnable task) {
        Callable<@Nullable Void> call = carried(() -> {
            task.run();
            return null;
        });
        return () -> {
            try {
                call.call();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e); // a Runnable throws nothing checked
            }
        };
    }
}
