package dev.arbor.events.deliveries;

import dev.arbor.events.deliveries.DeliveryStore.Due;
import dev.arbor.events.providers.HookReading;
import dev.arbor.platform.tracing.Traced;
import dev.arbor.platform.tracing.Tracing;
import io.opentelemetry.api.trace.SpanKind;

/**
 * A webhook delivery's spans. In the request that brings it: {@code webhook verify} (the provider's signature) and
 * {@code webhook record} (its row, which keeps the record span's {@code traceparent}). Later, on the dispatcher's
 * thread of whichever server dispatches it, {@code webhook dispatch}: a child of the record span in the same trace,
 * under which each trigger fires; a pipeline run a trigger starts is a trace of its own that links to it. Attributes
 * name the provider, the event type and the delivery, never the payload, a header or a secret.
 */
final class DeliverySpans {
    private DeliverySpans() {}

    static Traced verifying() {
        return Traced.child("webhook verify", SpanKind.INTERNAL);
    }

    static void read(Traced span, HookReading reading) {
        switch (reading) {
            case HookReading.Handshake handshake ->
                span.with("arbor.event.provider", handshake.provider()).with("arbor.delivery.outcome", "handshake");
            case HookReading.Refused refused -> {
                span.with("arbor.event.provider", refused.provider()).with("arbor.delivery.outcome", "refused");
                span.failed("invalid_signature", refused.reason());
            }
            case HookReading.Unreadable unreadable -> {
                span.with("arbor.event.provider", unreadable.provider()).with("arbor.delivery.outcome", "unreadable");
                span.failed("unreadable_delivery", "the delivery could not be read");
            }
            case HookReading.Verified verified ->
                span.with("arbor.event.provider", verified.provider())
                        .with("arbor.event.type", verified.type())
                        .with("arbor.delivery.outcome", "verified");
        }
    }

    static Traced recording(Delivery delivery) {
        Traced span = Traced.child("webhook record", SpanKind.INTERNAL)
                .with("arbor.delivery.id", delivery.id())
                .with("arbor.event.provider", delivery.provider());
        delivery.type().ifPresent(type -> span.with("arbor.event.type", type));
        return span;
    }

    /** A round's dispatch, in the trace of the request that recorded it (a no-op when it was recorded untraced). */
    static Traced dispatching(Tracing tracing, Due due) {
        Traced span = Traced.continued(tracing, due.traceParent().orElse(""), "webhook dispatch", SpanKind.INTERNAL)
                .with("arbor.delivery.id", due.delivery().id())
                .with("arbor.event.provider", due.delivery().provider())
                .with("arbor.delivery.round", due.round());
        due.delivery().type().ifPresent(type -> span.with("arbor.event.type", type));
        return span;
    }
}
