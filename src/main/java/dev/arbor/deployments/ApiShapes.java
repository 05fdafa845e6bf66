package dev.arbor.deployments;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.integer;
import static dev.arbor.platform.http.Schema.named;
import static dev.arbor.platform.http.Schema.nullable;
import static dev.arbor.platform.http.Schema.number;
import static dev.arbor.platform.http.Schema.object;
import static dev.arbor.platform.http.Schema.oneOf;
import static dev.arbor.platform.http.Schema.resource;
import static dev.arbor.platform.http.Schema.string;
import static dev.arbor.platform.http.Schema.timestamp;

import dev.arbor.platform.http.Schema;
import java.util.Arrays;

/** The shape of a deployment, for the OpenAPI document. */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema DEPLOYMENT = named(
            "Deployment",
            resource("deployment")
                    .required("project_id", nullable(string()))
                    .required("name", string())
                    .required("model_id", string())
                    .required("cluster_id", string())
                    .required("replicas", integer(1, Deployments.MAX_REPLICAS))
                    .required("ready_replicas", integer(0, Integer.MAX_VALUE))
                    .required(
                            "auto_scaling",
                            nullable(object().required("min_replicas", integer(1, Deployments.MAX_REPLICAS))
                                    .required("max_replicas", integer(1, Deployments.MAX_REPLICAS))
                                    .required("target_in_flight", integer(1, 1_000))))
                    .required(
                            "rate_limit",
                            nullable(object().required("algorithm", oneOf("token_bucket", "fixed_window"))
                                    .required("rate_limit", integer(1, 100_000_000))
                                    .required("time_window", oneOf("second", "minute", "hour"))))
                    .required(
                            "resources",
                            nullable(object().required(
                                            "cpu",
                                            nullable(number(
                                                    Schema.Bound.exclusive(0),
                                                    Schema.Bound.inclusive(Resources.MAX_CPU))))
                                    .required(
                                            "memory_bytes",
                                            nullable(integer(Resources.MIN_MEMORY_BYTES, Resources.MAX_MEMORY_BYTES)))
                                    .required("gpus", integer(0, Resources.MAX_GPUS))
                                    .required("gpu_type", nullable(string()))))
                    .required(
                            "status",
                            oneOf(Arrays.stream(DeploymentStatus.values())
                                    .map(DeploymentStatus::wire)
                                    .toArray(String[]::new)))
                    .required("progress", integer(0, 100))
                    .required("endpoint_url", nullable(string()))
                    .required("error", nullable(string()))
                    .optional(
                            "replicas_detail",
                            arrayOf(object().required("index", integer(0, Integer.MAX_VALUE))
                                    .required("pid", integer(0, Long.MAX_VALUE))
                                    .required("status", oneOf("starting", "ready", "failed", "stopping"))
                                    .required("in_flight", integer(0, Integer.MAX_VALUE))
                                    .required("error", nullable(string()))))
                    .required("created_at", timestamp())
                    .required("updated_at", timestamp()));
}
