package dev.arbor.deployments;

import dev.arbor.models.engines.ReplicaSet;

/** Starts replicas of a registry model on this machine: the models' runtime answers. */
@FunctionalInterface
public interface ReplicaSets {
    /**
     * Starts {@code replicas} worker processes of the model, each held to {@code limits}, named after {@code name}
     * (unique among the open sets) in their logs; {@code listener} hears of each replica's changes from then on.
     */
    ReplicaSet start(
            String modelId, String name, int replicas, ReplicaSet.WorkerLimits limits, ReplicaSet.Listener listener);
}
