package dev.arbor.pipelines.control;

import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.mapOf;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;

/** The shapes of runs and their events, for the OpenAPI document. */
public final class ApiShapes {
    private ApiShapes() {}

    /** A run's status, as schedules also answer it. */
    public static final Schema RUN_STATUS = oneOf("queued", "running", "paused", "completed", "failed", "cancelled");

    static final Schema ERROR = nullable(object().required("code", string()).required("message", string()));

    static final Schema STEP = object().required("id", string())
            .required("name", string())
            .required("action", string())
            .required("status", string())
            .required("attempts", integer(0, Long.MAX_VALUE))
            .required("outputs", nullable(mapOf(any())))
            .required("error", ERROR)
            .required("started_at", nullable(timestamp()))
            .required("finished_at", nullable(timestamp()))
            .required("duration_ms", nullable(integer(0, Long.MAX_VALUE)))
            .required("next_attempt_at", nullable(timestamp()));
    static final Schema RUN = named(
            "Run",
            resource("pipeline.run")
                    .required("pipeline_id", string())
                    .required("pipeline_version", integer(1, Long.MAX_VALUE))
                    .required("status", RUN_STATUS)
                    .required("params", mapOf(any()))
                    .required("trigger", object().required("type", string()))
                    .required("outputs", nullable(mapOf(any())))
                    .required("error", ERROR)
                    .required("timeout_seconds", integer())
                    .required("created_at", timestamp())
                    .required("started_at", nullable(timestamp()))
                    .required("finished_at", nullable(timestamp()))
                    .required("deadline_at", nullable(timestamp()))
                    .required("paused_at", nullable(timestamp()))
                    .required("replay_of", nullable(string()))
                    .required("priority", integer(-100, 100))
                    .required("trace_id", nullable(string()))
                    .optional(
                            "progress",
                            object().required("total_steps", integer()).required("finished_steps", integer()))
                    .optional("steps", arrayOf(STEP)));
    static final Schema APPROVAL = named(
            "Approval",
            resource("pipeline.approval")
                    .required("run_id", string())
                    .required("step_id", string())
                    .required("pipeline_id", string())
                    .required("status", oneOf("pending", "approved", "rejected"))
                    .required("message", string())
                    .required("approvers", arrayOf(string()))
                    .required("on_timeout", oneOf("approve", "reject"))
                    .required("requested_at", timestamp())
                    .required("expires_at", timestamp())
                    .required("decided_by", nullable(string()))
                    .required("decided_at", nullable(timestamp()))
                    .required("comment", nullable(string())));
    static final Schema APPROVALS = Schema.list(APPROVAL);
    static final Schema EVENT = named(
            "RunEvent",
            object().required("id", integer())
                    .required("object", oneOf("pipeline.run.event"))
                    .required("run_id", string())
                    .required("kind", string())
                    .required("step_id", nullable(string()))
                    .required("status", nullable(string()))
                    .required("level", nullable(string()))
                    .required("message", string())
                    .required("created_at", timestamp()));
    static final Schema EVENTS = object().required("object", oneOf("list"))
            .required("data", arrayOf(EVENT))
            .required("first_id", nullable(string()))
            .required("last_id", nullable(string()))
            .required("has_more", bool());
}
