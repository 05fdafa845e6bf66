package dev.arbor.pipelines.schedules;

import static dev.arbor.pipelines.control.ApiShapes.RUN_STATUS;
import static dev.arbor.platform.http.Schema.any;
import static dev.arbor.platform.http.Schema.arrayOf;
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

/** The shapes of schedules, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema SCHEDULE = named(
            "Schedule",
            resource("pipeline.schedule")
                    .required("pipeline_id", string())
                    .required("name", string())
                    .required("cron", string())
                    .required("timezone", string())
                    .required("params", mapOf(any()))
                    .required("status", oneOf("active", "paused"))
                    .required("next_run_at", nullable(timestamp()))
                    .required("last_run_at", nullable(timestamp()))
                    .required("last_run_id", nullable(string()))
                    .required("last_error", nullable(any()))
                    .required("run_count", integer(0, Long.MAX_VALUE))
                    .required(
                            "next_runs",
                            arrayOf(object().required("local", string()).required("at", timestamp())))
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
    static final Schema STARTED = object().required("id", string())
            .required("object", oneOf("pipeline.run"))
            .required("status", RUN_STATUS)
            .required("schedule_id", string());
}
