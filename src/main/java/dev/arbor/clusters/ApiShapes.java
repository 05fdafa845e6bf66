package dev.arbor.clusters;

import static dev.arbor.platform.http.Schema.arrayOf;
import static dev.arbor.platform.http.Schema.bool;
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

/** The shapes of clusters and their health, for the OpenAPI document (a kubeconfig is written, never shown). */
final class ApiShapes {
    private ApiShapes() {}

    static final Schema CLUSTER = named(
            "Cluster",
            resource("cluster")
                    .required("name", string())
                    .required("type", oneOf("local", "kubernetes"))
                    .required("server", nullable(string()))
                    .required("context", nullable(string()))
                    .required("namespace", nullable(string()))
                    .required("kubeconfig_set", bool())
                    .required("created_at", nullable(timestamp()))
                    .required("updated_at", nullable(timestamp())));

    static final Schema HEALTH = named(
            "ClusterHealth",
            object().required("object", oneOf("cluster.health"))
                    .required("cluster_id", string())
                    .required("status", oneOf("healthy", "degraded", "unhealthy"))
                    .required("node_count", integer(0, Integer.MAX_VALUE))
                    .required(
                            "available_resources",
                            object().required("cpu", number())
                                    .required("memory_bytes", integer(0, Long.MAX_VALUE))
                                    .required(
                                            "gpus",
                                            arrayOf(object().required("name", string())
                                                    .required("memory_bytes", integer(0, Long.MAX_VALUE)))))
                    .required("reasons", arrayOf(string())));
}
