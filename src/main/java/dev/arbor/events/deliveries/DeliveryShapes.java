package dev.arbor.events.deliveries;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of the webhook ingest and the delivery log in the OpenAPI document. */
final class DeliveryShapes {
    private DeliveryShapes() {}

    static final Schema RECEIPT = object().required("object", oneOf("event.delivery.receipt"))
            .required("delivery_id", string())
            .required("duplicate", bool())
            .closed();

    private static Schema.Obj summary() {
        return object().required("id", string())
                .required("object", oneOf("event.delivery"))
                .required("connection_id", string())
                .required("provider", string())
                .required("status", oneOf("accepted", "refused", "unreadable"))
                .required("type", nullable(string()))
                .required("listed_type", bool())
                .required("provider_delivery_id", nullable(string()))
                .required("duplicates", integer(0, Integer.MAX_VALUE))
                .required("last_duplicate_at", nullable(timestamp()))
                .required(
                        "signature",
                        object().required("valid", bool())
                                .required(
                                        "reason",
                                        nullable(oneOf(
                                                "missing_header",
                                                "malformed_header",
                                                "bad_signature",
                                                "timestamp_outside_tolerance")))
                                .required("detail", nullable(string()))
                                .required("secret", nullable(oneOf("current", "previous")))
                                .closed())
                .required(
                        "dispatch",
                        object().required("status", oneOf("waiting", "dispatched", "never"))
                                .required("rounds", integer(0, Integer.MAX_VALUE))
                                .required("dispatched_at", nullable(timestamp()))
                                .required("error", nullable(string()))
                                .closed())
                .required("occurred_at", timestamp())
                .required("received_at", timestamp());
    }

    static final Schema DELIVERY = named("EventDelivery", summary().closed());

    static final Schema DELIVERY_DETAIL = named(
            "EventDeliveryDetail",
            summary()
                    .required("headers", mapOf(string()))
                    .required("payload", nullable(any("The event's payload as the provider sent it, secrets masked.")))
                    .required("body", nullable(string()))
                    .required("body_truncated", bool())
                    .required("body_bytes", nullable(integer(0, Long.MAX_VALUE)))
                    .required(
                            "event",
                            nullable(object().required("id", string())
                                    .required("provider", string())
                                    .required("type", string())
                                    .required("occurred_at", timestamp())
                                    .required("connection_id", string())
                                    .required("payload", any("The provider's payload."))
                                    .closed()))
                    .required(
                            "firings",
                            arrayOf(object().required("trigger_id", string())
                                    .required("round", integer(0, Integer.MAX_VALUE))
                                    .required("status", oneOf("waiting", "done", "merged", "failed"))
                                    .required("run_id", nullable(string()))
                                    .required("error", nullable(string()))
                                    .required("fired_at", timestamp())
                                    .closed()))
                    .required(
                            "errors",
                            arrayOf(object().required("stage", oneOf("signature", "reading", "dispatch"))
                                    .required("message", string())
                                    .closed()))
                    .closed());
}
