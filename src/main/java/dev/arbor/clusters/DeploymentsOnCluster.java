package dev.arbor.clusters;

import java.util.List;

/**
 * The deployments that run on a cluster, which keep it from being deleted. The deployments feature answers this; until
 * it exists, {@link #NONE} says there are none.
 */
@FunctionalInterface
public interface DeploymentsOnCluster {
    DeploymentsOnCluster NONE = clusterId -> List.of();

    /** The names of the deployments on the cluster that are not deleted yet; empty when there are none. */
    List<String> running(String clusterId);
}
