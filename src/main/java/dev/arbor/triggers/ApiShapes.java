package dev.arbor.triggers;

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

/** The shapes of the triggers API: triggers (a URL target's secret only as {@code secret_set}) and firings. */
final class ApiShapes {
    private ApiShapes() {}

    private static final Schema TARGET = Schema.anyOf(
            object().required("pipeline_id", string())
                    .required("params", mapOf(any()))
                    .closed(),
            object().required("url", string())
                    .required("secret_set", bool())
                    .required("previous_secret_expires_at", nullable(timestamp()))
                    .closed());

    private static Schema.Obj trigger() {
        return Schema.resource("trigger")
                .required("project_id", string())
                .required("name", string())
                .required("connection_id", string())
                .required("event_types", arrayOf(string()))
                .required("filter", mapOf(any("A value the path's value must equal, or a list of values.")))
                .required("target", TARGET)
                .required("enabled", bool())
                .required("debounce_seconds", integer(0, TriggerBody.MAX_DEBOUNCE_SECONDS))
                .required("correlation_key", nullable(string()))
                .required("created_at", timestamp())
                .required("updated_at", timestamp());
    }

    static final Schema TRIGGER = named("Trigger", trigger().closed());

    /** What a create or change answers: a URL target's signing secret, when it is new, once. */
    static final Schema TRIGGER_SAVED =
            named("TriggerSaved", trigger().optional("signing_secret", string()).closed());

    static final Schema FIRING = named(
            "TriggerFiring",
            Schema.resource("trigger.firing")
                    .required("trigger_id", string())
                    .required("delivery_id", string())
                    .required("round", integer(0, Integer.MAX_VALUE))
                    .required("status", oneOf("waiting", "done", "merged", "failed"))
                    .required("run_id", nullable(string()))
                    .required("event_count", integer(1, Integer.MAX_VALUE))
                    .required("merged_into", nullable(string()))
                    .required("correlation_value", any("The correlation key's value in the event; null without one."))
                    .required("error", nullable(string()))
                    .required(
                            "attempts",
                            arrayOf(object().required("attempt", integer(1, Integer.MAX_VALUE))
                                    .required("at", timestamp())
                                    .required("status_code", nullable(integer(100, 599)))
                                    .required("error", nullable(string()))
                                    .closed()))
                    .required("fired_at", timestamp())
                    .required("updated_at", timestamp())
                    .closed());
}
