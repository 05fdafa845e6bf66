package dev.arbor.clusters;

import java.time.Duration;

/** How other parts (the Cluster Health Check pipeline action) ask after a cluster, without its routes or storage. */
public interface ClusterHealthChecks {
    /**
     * The cluster's health now, asked within {@code timeout}; a cluster that cannot be reached is unhealthy, not an
     * error.
     *
     * @throws dev.arbor.platform.errors.ApiException {@code cluster_not_found} for an unknown id
     */
    ClusterHealth check(String clusterId, Duration timeout);
}
