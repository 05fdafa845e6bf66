package dev.arbor.pipelines;

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

import dev.arbor.pipelines.definitions.PipelineDefinition;
import dev.arbor.platform.http.Schema;

/** The shapes of pipelines and their webhooks, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema PROBLEMS = arrayOf(object().required("code", string())
            .required("param", nullable(string()))
            .required("message", string()));

    static final Schema PARAMETERS = arrayOf(object().required("name", string())
            .required("type", string())
            .optional("required", bool())
            .optional("description", string())
            .optional("default", any()));
    static final Schema STEPS = arrayOf(object().required("id", string())
            .required("action", string())
            .optional("name", string())
            .optional("params", mapOf(any()))
            .optional("depends_on", arrayOf(string()))
            .optional("on_failure", string())
            .optional("condition", string())
            .optional("retry", mapOf(any()))
            .optional("timeout_seconds", nullable(integer(1, 604_800))));
    static final Schema OUTPUTS = mapOf(string());
    static final Schema TIMEOUT_SECONDS = integer(1, PipelineDefinition.MAX_TIMEOUT_SECONDS);
    static final Schema MAX_CONCURRENT_RUNS = integer(1, PipelineDefinition.MAX_CONCURRENT_RUNS);
    static final Schema PRIORITY = integer(-PipelineDefinition.PRIORITY_RANGE, PipelineDefinition.PRIORITY_RANGE);

    static final Schema DEFINITION = named(
            "PipelineDefinition",
            object().required("name", string())
                    .optional("description", string())
                    .optional("parameters", PARAMETERS)
                    .required("steps", STEPS)
                    .optional("outputs", OUTPUTS)
                    .optional("timeout_seconds", nullable(TIMEOUT_SECONDS))
                    .optional("max_concurrent_runs", nullable(MAX_CONCURRENT_RUNS))
                    .optional("priority", nullable(PRIORITY)));
    static final Schema PIPELINE = named(
            "Pipeline",
            resource("pipeline")
                    .required("name", string())
                    .required("description", string())
                    .required("version", integer(1, Long.MAX_VALUE))
                    .required("step_count", integer(0, Long.MAX_VALUE))
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp())
                    .required("status", oneOf("active", "paused"))
                    .required("paused_at", nullable(timestamp()))
                    .required("definition", DEFINITION));
    static final Schema VERSIONS = Schema.list(named(
            "PipelineVersion",
            object().required("object", oneOf("pipeline.version"))
                    .required("pipeline_id", string())
                    .required("version", integer(1, Long.MAX_VALUE))
                    .required("created_at", timestamp())
                    .required("definition", DEFINITION)));
    static final Schema VERSION_DIFF = named(
            "PipelineVersionDiff",
            object().required("object", oneOf("pipeline.version_diff"))
                    .required("pipeline_id", string())
                    .required("from", integer(1, Long.MAX_VALUE))
                    .required("to", integer(1, Long.MAX_VALUE))
                    .required("steps_added", arrayOf(string()))
                    .required("steps_removed", arrayOf(string()))
                    .required("steps_changed", arrayOf(string()))
                    .required(
                            "changes",
                            arrayOf(object().required("op", oneOf("add", "remove", "replace"))
                                    .required("path", string())
                                    .optional("value", any()))));
    static final Schema ACTION_VALIDATION = object().required("object", oneOf("action.validation"))
            .required("valid", bool())
            .required("errors", PROBLEMS);
    static final Schema PIPELINE_VALIDATION = object().required("object", oneOf("pipeline.validation"))
            .required("valid", bool())
            .required("errors", PROBLEMS);

    private static final Schema.Obj WEBHOOK_FIELDS = object().required("object", oneOf("pipeline.webhook"))
            .required("pipeline_id", string())
            .required("url", string())
            .required("enabled", bool())
            .required("secret_created_at", nullable(timestamp()))
            .required("previous_secret_expires_at", nullable(timestamp()));
    static final Schema WEBHOOK = named("PipelineWebhook", WEBHOOK_FIELDS);
    static final Schema WEBHOOK_WITH_SECRET =
            named("PipelineWebhookWithSecret", WEBHOOK_FIELDS.required("secret", string()));
    static final Schema WEBHOOK_CALL = named(
            "PipelineWebhookCall",
            object().required("object", oneOf("pipeline.webhook_call"))
                    .required("pipeline_id", string())
                    .required("webhook_id", string())
                    .required("run_id", string())
                    .required("duplicate", bool()));
}
